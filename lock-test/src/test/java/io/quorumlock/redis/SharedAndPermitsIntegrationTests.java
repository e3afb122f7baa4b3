package io.quorumlock.redis;

import java.util.List;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

/**
 * {@link SharedAndPermitsContract} on one node, three, five, and three with one killed.
 */
class SharedAndPermitsIntegrationTests {

	@Nested
	class SingleNode extends SharedAndPermitsContract {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(1);

		@Override
		RedisServers redis() {
			return redis;
		}

	}

	@Nested
	class ThreeNodes extends SharedAndPermitsContract {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(3);

		@Override
		RedisServers redis() {
			return redis;
		}

	}

	@Nested
	class FiveNodes extends SharedAndPermitsContract {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(5);

		@Override
		RedisServers redis() {
			return redis;
		}

	}

	@Nested
	class ThreeNodesOneKilled extends SharedAndPermitsContract {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(3);

		@Override
		RedisServers redis() {
			return redis;
		}

		@Override
		void prepareServers() {
			redis.node(2).kill();
		}

		@Override
		List<RedisServer> liveNodes() {
			return redis.nodes().subList(0, 2);
		}

	}

}
