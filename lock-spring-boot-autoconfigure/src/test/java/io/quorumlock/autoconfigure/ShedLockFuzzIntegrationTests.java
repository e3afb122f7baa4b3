package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import net.javacrumbs.shedlock.test.support.FuzzTester;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.RegistryStatus;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.shedlock.QuorumLockProvider;
import io.quorumlock.testing.RedisServers;

import static org.awaitility.Awaitility.await;

/**
 * ShedLock's own published {@link FuzzTester} (shedlock-test-support: threads that take
 * two jobs' locks without a wait and count under them; the counts must add up) against
 * {@link QuorumLockProvider} on an engine with the defaults (restart guard off: fresh
 * fixture masters), on one master and on three. A provider call that fails for late
 * answers fails the tester: ShedLock's own Redis provider has no per-call budget, so a
 * service moving to quorumlock must not start skipping ticks.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ShedLockFuzzIntegrationTests {

	static void fuzz(RedisServers redis) throws Exception {
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.rejoinDelay(Duration.ZERO)
			.build()) {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> engine.nodes().stream().allMatch(RegistryStatus.Node::voting));
			new FuzzTester(new QuorumLockProvider(engine)).doFuzzTest();
		}
	}

	@Nested
	@Timeout(value = 300, unit = TimeUnit.SECONDS)
	class OneMaster {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(1);

		@Test
		void shedLocksFuzzTesterPassesWithTheDefaults() throws Exception {
			fuzz(redis);
		}

	}

	@Nested
	@Timeout(value = 300, unit = TimeUnit.SECONDS)
	class ThreeMasters {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(3);

		@Test
		void shedLocksFuzzTesterPassesWithTheDefaults() throws Exception {
			fuzz(redis);
		}

	}

}
