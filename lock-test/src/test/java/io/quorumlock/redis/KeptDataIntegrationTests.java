package io.quorumlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import io.quorumlock.redis.node.ServerState;

/**
 * A master that kept its data across a restart (an append-only file, fsync always) still
 * carries its dataset marker, and with it the keys it held: it votes again as soon as it
 * is back, whatever its new {@code run_id}, where a guard that dated restarts would hold
 * it back for the whole rejoin delay.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KeptDataIntegrationTests {

	private static final Duration GUARD = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServers redis = RedisServers.builder()
		.nodes(3)
		.args("--appendonly", "yes", "--appendfsync", "always")
		.build();

	@Test
	void aMasterRestartedFromItsAppendOnlyFileVotesAtOnce() {
		String key = "k" + UUID.randomUUID();
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			// not a test of timeouts: room for a loaded machine's answers
			.nodeTimeout(Duration.ofSeconds(1))
			.defaults(LockOptions.none().lease(Duration.ofSeconds(10)))
			.rejoinDelay(GUARD)
			// brand-new masters: marked at once rather than held back for the guard
			.freshMasterRunIds(redis.nodes().stream().map((node) -> runId(node.call("INFO", "server"))).toList())
			.build()) {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> engine.nodes().stream().allMatch(RegistryStatus.Node::voting));
			Lease held = engine.acquire(LockRequest.of(key).renew(false));
			// granted at a quorum of two: the third master's SET may land later, so the
			// master restarted is one that holds the key now (a quorum of them does), not
			// a particular one
			int restarted = IntStream.range(0, redis.size())
				.filter((i) -> redis.node(i).exists("lock:{" + key + "}"))
				.findFirst()
				.orElseThrow(() -> new AssertionError("no master holds the key of a granted lease"));
			redis.node(restarted).restart();
			// back with its data: its marker and the lease's key
			assertThat(redis.node(restarted).exists("lock:{" + key + "}")).isTrue();
			await().atMost(Duration.ofSeconds(10)).until(() -> engine.nodes().get(restarted).voting());
			assertThat(engine.nodes().get(restarted).heldBackFor()).isZero();
			held.release();
		}
	}

	private static String runId(Object info) {
		return ServerState.parseRunId(String.valueOf(info));
	}

}
