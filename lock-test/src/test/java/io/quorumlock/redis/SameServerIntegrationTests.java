package io.quorumlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * One master listed under two names ({@code localhost} and {@code 127.0.0.1}) is one
 * server, identified by the {@code run_id} it reports: refused at start-up when known
 * then, and otherwise counted once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SameServerIntegrationTests {

	/**
	 * The figures of a round short of a quorum with one master left: its yes, or its
	 * silence on a loaded machine (unknown, never a refusal), whichever came.
	 */
	private static final String ONE_OR_NO_VOTE = "(?s).*acquired [01] of 3 nodes, quorum 2.*";

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(2);

	private static String localhost(int node) {
		return "redis://localhost:" + redis.node(node).port();
	}

	private static String loopback(int node) {
		return "redis://127.0.0.1:" + redis.node(node).port();
	}

	@Test
	void sameServerUnderTwoNamesIsRefusedAtStartUp() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QuorumLockEngine.builder()
				.nodes(localhost(0), loopback(0), loopback(1))
				.rejoinDelay(Duration.ZERO)
				.build())
			.withMessageContaining("nodes: " + localhost(0) + " and " + loopback(0) + " are the same Redis server")
			.withMessageContaining("run_id");
	}

	@Test
	void sameServerFoundAfterStartUpVotesOnce() {
		redis.node(0).kill();
		try (QuorumLockEngine locks = QuorumLockEngine.builder()
			.nodes(localhost(0), loopback(0), loopback(1))
			// not a test of timeouts: room for a loaded machine's answers
			.nodeTimeout(Duration.ofSeconds(1))
			.rejoinDelay(Duration.ZERO)
			.build()) {
			redis.node(0).restart();
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
				RegistryStatus.Node second = locks.nodes().get(1);
				assertThat(second.sameServerAs()).isEqualTo("localhost:" + redis.node(0).port());
				assertThat(second.voting()).isFalse();
				assertThat(locks.nodes().get(0).countsTowardQuorum()).isTrue();
			});
			// one real server left: it must not make a quorum of two on its own
			redis.node(1).kill();
			assertThatExceptionOfType(QuorumUnavailableException.class)
				.isThrownBy(() -> locks.acquire(LockRequest.of("k" + UUID.randomUUID()).lease(Duration.ofSeconds(5))))
				.withMessageMatching(ONE_OR_NO_VOTE)
				.withMessageContaining("same Redis server as localhost:" + redis.node(0).port());
		}
		finally {
			redis.node(1).restart();
		}
	}

}
