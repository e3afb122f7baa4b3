package io.quorumlock.integration;

import java.time.Duration;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockOptions;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.QuorumReadiness;
import io.quorumlock.testing.RedisServers;

/**
 * The Spring Integration registry's contract on three real Redis masters.
 */
class QuorumLockRegistryIntegrationTests extends QuorumLockRegistryContract {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	@Override
	DistributedLockRegistry start(LockOptions defaults) {
		QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofMillis(100))
			.rejoinDelay(Duration.ZERO)
			.defaults(defaults)
			.build();
		QuorumReadiness.await(engine, Duration.ofSeconds(10));
		return engine;
	}

	@Override
	boolean keptOverASecond(String key) {
		return redis.nodes().stream().allMatch((node) -> node.pttl(key) > 1000);
	}

}
