package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The restart guard on real servers, as an operator sees it: a dead master is named as
 * not connected (not as waiting for its uptime), and masters declared brand new by their
 * run_id vote at once until they restart.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RestartGuardIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	@Test
	void aDeadMasterIsNamedAsNotConnected() {
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofMillis(100))
			.defaults(io.quorumlock.LockOptions.none().lease(Duration.ofSeconds(1)))
			.build()) {
			// the fixture's servers are seconds old: wait until the 1 s guard lets them
			// vote
			await().atMost(Duration.ofSeconds(20))
				.until(() -> engine.nodes().stream().allMatch(RegistryStatus.Node::voting));
			redis.node(1).kill();
			redis.node(2).kill();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> engine.nodes().stream().filter(RegistryStatus.Node::up).count() == 1);
			assertThatExceptionOfType(QuorumUnavailableException.class)
				.isThrownBy(() -> engine.tryAcquire(LockRequest.of("dead")))
				.withMessageContaining(redis.node(1).host() + ":" + redis.node(1).port() + ": not connected")
				.withMessageNotContaining("until its uptime is read");
		}
	}

	@Test
	void mastersDeclaredBrandNewVoteAtOnceUntilTheyRestart() {
		List<String> runIds = redis.nodes().stream().map(RestartGuardIntegrationTests::runId).toList();
		try (QuorumLockEngine guarded = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofMillis(100))
			.rejoinDelay(Duration.ofMinutes(5))
			.build();
				QuorumLockEngine fresh = QuorumLockEngine.builder()
					.nodes(redis.uris())
					.nodeTimeout(Duration.ofMillis(100))
					.rejoinDelay(Duration.ofMinutes(5))
					.freshMasterRunIds(runIds)
					.build()) {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> guarded.nodes().stream().allMatch((node) -> node.uptime().compareTo(Duration.ZERO) >= 0));
			// without the declaration, masters seconds old are held back
			assertThatExceptionOfType(QuorumUnavailableException.class)
				.isThrownBy(() -> guarded.tryAcquire(LockRequest.of("new")))
				.withMessageContaining("held back by the restart guard for another");
			await().atMost(Duration.ofSeconds(10))
				.until(() -> fresh.nodes().stream().allMatch(RegistryStatus.Node::voting));
			try (Lease lease = fresh.tryAcquire(LockRequest.of("new")).orElseThrow()) {
				assertThat(lease.isValid()).isTrue();
			}
			// a restart gives a new run_id: the guard applies to that master again
			redis.node(0).restart();
			await().atMost(Duration.ofSeconds(20)).until(() -> {
				RegistryStatus.Node first = fresh.nodes().get(0);
				return first.up() && first.uptime().compareTo(Duration.ZERO) >= 0;
			});
			RegistryStatus.Node restarted = fresh.nodes().get(0);
			assertThat(restarted.voting()).isFalse();
			assertThat(restarted.heldBackFor()).isGreaterThan(Duration.ofMinutes(4));
			assertThat(fresh.nodes().get(1).voting()).isTrue();
		}
	}

	private static String runId(RedisServer server) {
		String info = String.valueOf(server.call("INFO", "server"));
		return info.lines()
			.filter((line) -> line.startsWith("run_id:"))
			.map((line) -> line.substring("run_id:".length()).trim())
			.findFirst()
			.orElseThrow();
	}

}
