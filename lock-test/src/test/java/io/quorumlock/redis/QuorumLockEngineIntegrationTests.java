package io.quorumlock.redis;

import java.util.List;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The registry contract on every topology: one node, a quorum of 3 and of 5, and 3 with
 * one node down for the whole test.
 */
class QuorumLockEngineIntegrationTests {

	@Nested
	class SingleNode extends RedisRegistryContract {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(1);

		@Override
		RedisServers redis() {
			return redis;
		}

		@Test
		void singleModeHasQuorumOne() {
			assertThat(this.locks.quorum()).isEqualTo(1);
		}

	}

	@Nested
	class ThreeNodes extends RedisRegistryContract {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(3);

		@Override
		RedisServers redis() {
			return redis;
		}

		@Test
		void quorumIsTwo() {
			assertThat(this.locks.quorum()).isEqualTo(2);
			assertThat(this.locks.nodeAddresses()).hasSize(3).allMatch((a) -> a.startsWith("127.0.0.1:"));
		}

	}

	@Nested
	class FiveNodes extends RedisRegistryContract {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(5);

		@Override
		RedisServers redis() {
			return redis;
		}

		@Test
		void quorumIsThree() {
			assertThat(this.locks.quorum()).isEqualTo(3);
		}

	}

	@Nested
	class ThreeNodesOneKilled extends RedisRegistryContract {

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
