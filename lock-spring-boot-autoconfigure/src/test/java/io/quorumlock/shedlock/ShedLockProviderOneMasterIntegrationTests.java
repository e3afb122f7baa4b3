package io.quorumlock.shedlock;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.testing.RedisServers;

/**
 * ShedLock's provider contract on one master (single mode).
 */
class ShedLockProviderOneMasterIntegrationTests extends ShedLockProviderContract {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	@Override
	RedisServers redis() {
		return redis;
	}

}
