package io.quorumlock.shedlock;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.testing.RedisServers;

/**
 * ShedLock's provider contract on three masters (quorum 2).
 */
class ShedLockProviderThreeMastersIntegrationTests extends ShedLockProviderContract {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	@Override
	RedisServers redis() {
		return redis;
	}

}
