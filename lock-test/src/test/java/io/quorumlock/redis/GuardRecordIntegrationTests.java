package io.quorumlock.redis;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.LockOptions;
import io.quorumlock.RegistryStatus;
import io.quorumlock.redis.node.ServerState;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The guard each client records on the masters lasts only while that client renews it:
 * another client holds a master back for the longer guard, and says who recorded it,
 * while the client with the longer guard runs; once it has stopped and its record has run
 * out, the others fall back to their own.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GuardRecordIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private static QuorumLockEngine engine(Duration rejoinDelay) {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofMillis(200))
			.defaults(LockOptions.none().lease(Duration.ofSeconds(1)))
			.rejoinDelay(rejoinDelay)
			.freshMasterRunIds(redis.nodes()
				.stream()
				.map((node) -> ServerState.parseRunId(String.valueOf(node.call("INFO", "server"))))
				.toList())
			.build();
	}

	private static String reason(QuorumLockEngine engine) {
		return String.valueOf(engine.nodes().get(0).lastError());
	}

	@Test
	void aLongerGuardIsAdoptedWhileItsClientRunsAndNoLonger() {
		try (QuorumLockEngine shorter = engine(Duration.ofSeconds(2))) {
			QuorumLockEngine longer = engine(Duration.ofSeconds(5));
			await().atMost(Duration.ofSeconds(20))
				.until(() -> shorter.nodes().stream().allMatch(RegistryStatus.Node::countsTowardQuorum)
						&& longer.nodes().stream().allMatch(RegistryStatus.Node::countsTowardQuorum));
			redis.node(0).flushAll();
			// held back for the longer guard, naming the process that recorded it
			await().atMost(Duration.ofSeconds(5))
				.until(() -> reason(shorter).contains("(rejoin-delay 5 s, recorded by "
						+ ManagementFactory.getRuntimeMXBean().getName() + " since "));
			longer.close();
			// its record runs out (its guard and a margin) and is no longer adopted
			await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofSeconds(1)).until(() -> {
				redis.node(0).flushAll();
				return reason(shorter).contains("(rejoin-delay 2 s)");
			});
		}
	}

}
