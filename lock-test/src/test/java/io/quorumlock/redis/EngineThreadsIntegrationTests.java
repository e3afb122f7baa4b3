package io.quorumlock.redis;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The threads an engine starts on its own Lettuce resources: Lettuce's command timeouts
 * and reconnect delays run on the engine's timing wheels, which sleep while nothing is
 * armed, so no Lettuce timer thread (which wakes ten times a second for as long as it
 * runs) is started.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EngineThreadsIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	@Test
	void commandsWithLettucesTimeoutsStartNoLettuceTimerThread() {
		Set<Thread> before = lettuceTimers();
		try (QuorumLockEngine locks = QuorumLockEngine.builder().nodes(redis.uris()).build()) {
			for (int i = 0; i < 5; i++) {
				locks.acquire(LockRequest.of("k" + i).lease(Duration.ofSeconds(10))).release();
			}
			Set<Thread> started = lettuceTimers();
			started.removeAll(before);
			assertThat(started).as("Lettuce timer threads started by the engine").isEmpty();
			assertThat(Thread.getAllStackTraces().keySet().stream().map(Thread::getName))
				.as("the engine's own wheels run instead")
				.anyMatch((name) -> name.startsWith("quorumlock-watchdog"));
		}
	}

	private static Set<Thread> lettuceTimers() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().startsWith("lettuce-timer"))
			.collect(Collectors.toSet());
	}

}
