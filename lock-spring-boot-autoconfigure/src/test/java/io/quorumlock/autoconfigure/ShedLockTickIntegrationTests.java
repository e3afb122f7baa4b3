package io.quorumlock.autoconfigure;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.testing.RedisServers;

/**
 * Every tick fired at once on three instances runs once with a ShedLock
 * {@code @SchedulerLock} job, as the moving-from-ShedLock page writes it.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ShedLockTickIntegrationTests extends SimultaneousTickIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	ShedLockTickIntegrationTests() {
		super("ShedLock", "lock:shedlock:{nightly-report}", ShedLockConfiguration.class);
	}

	@Override
	RedisServers redis() {
		return redis;
	}

}
