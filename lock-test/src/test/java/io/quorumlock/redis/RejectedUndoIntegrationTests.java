package io.quorumlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An undo that a node rejects because its connection is down is sent again once the node
 * is back: a SET that landed before the drop (kept here by the node's append-only file
 * across a crash) must not hold the key for a whole lease.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RejectedUndoIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.builder()
		.nodes(3)
		.args("--appendonly", "yes", "--appendfsync", "always")
		.build();

	private QuorumLockEngine locks;

	private String key;

	@BeforeEach
	void start() {
		this.locks = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofMillis(500))
			.rejoinDelay(Duration.ZERO) // the test restarts a node on purpose
			.retryBudget(Duration.ZERO) // one round, whose undo the crash rejects
			.build();
		this.key = "k" + UUID.randomUUID();
	}

	@AfterEach
	void close() {
		redis.nodes().forEach((node) -> {
			if (node.isPaused()) {
				node.resume();
			}
		});
		this.locks.close();
	}

	@Test
	void phantomKeyOfAFailedRoundIsRemovedWhenItsNodeComesBack() throws Exception {
		String redisKey = "lock:{" + this.key + "}";
		// nodes 1 and 2 hang: the round can only fail, and only node 0 takes the key
		redis.node(1).pause();
		redis.node(2).pause();
		CompletableFuture<Lease> acquiring = this.locks
			.acquireAsync(LockRequest.of(this.key).lease(Duration.ofSeconds(40)));
		await().atMost(Duration.ofSeconds(10)).until(() -> redis.node(0).exists(redisKey));
		// node 0 crashes before the undo reaches it: the undo is rejected, the key
		// survives in its append-only file
		redis.node(0).kill();
		assertThat(acquiring).failsWithin(Duration.ofSeconds(10));
		redis.node(0).restart();
		redis.node(1).resume();
		redis.node(2).resume();
		assertThat(redis.node(0).exists(redisKey)).as("the SET survived the crash").isTrue();
		// removed once the engine is reconnected, far sooner than the 40 s lease
		await().atMost(Duration.ofSeconds(15)).until(() -> !redis.node(0).exists(redisKey));
		assertThat(this.locks.tryAcquire(LockRequest.of(this.key))).hasValueSatisfying(Lease::release);
	}

}
