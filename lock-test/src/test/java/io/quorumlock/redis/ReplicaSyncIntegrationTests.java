package io.quorumlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockException;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code sync-replicas}: a grant counts only once replicas acknowledged it (Redis WAIT).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReplicaSyncIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(2);

	@AfterEach
	void detachReplica() {
		redis.node(1).resume();
		redis.node(1).call("REPLICAOF", "NO", "ONE");
	}

	private static void attachReplica() {
		RedisServer master = redis.node(0);
		RedisServer replica = redis.node(1);
		replica.call("REPLICAOF", master.host(), Integer.toString(master.port()));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> String.valueOf(master.call("INFO", "replication")).contains("state=online")
					&& String.valueOf(replica.call("INFO", "replication")).contains("master_link_status:up"));
	}

	private static long blockedClients(RedisServer server) {
		for (String line : String.valueOf(server.call("INFO", "clients")).split("\r?\n")) {
			if (line.startsWith("blocked_clients:")) {
				return Long.parseLong(line.substring("blocked_clients:".length()).trim());
			}
		}
		throw new IllegalStateException("no blocked_clients in INFO clients");
	}

	@Test
	void fencingWaitsForTheReplicasToo() {
		attachReplica();
		String key = "k" + UUID.randomUUID();
		// a wait: on a loaded machine the replica may miss one 100 ms WAIT before it is
		// paused
		try (QuorumLockEngine locks = engine(1)) {
			Lease lease = locks
				.acquire(LockRequest.of(key).lease(Duration.ofSeconds(1)).waitAtMost(Duration.ofSeconds(5)));
			try {
				redis.node(1).pause();
				// the counter's INCR would not survive a failover to the replica: no
				// token (tried while the lease lasts, whose renewal fails for the same
				// reason); the last attempt is refused by WAIT, or cut short by the
				// lease's end
				assertThatExceptionOfType(LockException.class).isThrownBy(lease::fencingToken)
					.satisfies((ex) -> assertThat(ex.getMessage()).containsAnyOf("WAIT: 0 of 1 replicas acknowledged",
							"no answer in time", "lease lost", "expired"));
			}
			finally {
				// its renewal needs the paused replica too: the lease is lost by now, or
				// soon, and its release says so
				try {
					lease.release();
				}
				catch (LeaseLostException expected) {
					// the loss is what the pause causes; the refusal is the subject
				}
			}
		}
	}

	@Test
	void renewalWaitsForTheReplicasToo() {
		attachReplica();
		String key = "k" + UUID.randomUUID();
		CountDownLatch lost = new CountDownLatch(1);
		try (QuorumLockEngine locks = QuorumLockEngine.builder()
			.nodes(redis.node(0).uri())
			.nodeTimeout(Duration.ofMillis(100))
			.syncReplicas(1)
			.listener(new LockListener() {
				@Override
				public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
					lost.countDown();
				}
			})
			.build()) {
			// a wait: on a loaded machine the replica may miss one 100 ms WAIT before it
			// is paused
			Lease lease = locks
				.acquire(LockRequest.of(key).lease(Duration.ofSeconds(1)).waitAtMost(Duration.ofSeconds(5)));
			redis.node(1).pause();
			// an extension the replica never saw would not survive a failover to it
			await().atMost(Duration.ofSeconds(10)).until(() -> lost.getCount() == 0);
			assertThat(lease.isValid()).isFalse();
		}
	}

	@Test
	void aWaitForALaggingReplicaDoesNotHoldUpAReleaseOnTheSameNode() throws Exception {
		attachReplica();
		String held = "k" + UUID.randomUUID();
		String waiting = "k" + UUID.randomUUID();
		// WAIT blocks for up to the node timeout: long here, so that it is still blocked
		// when the release has come and gone
		try (QuorumLockEngine locks = QuorumLockEngine.builder()
			.nodes(redis.node(0).uri())
			.nodeTimeout(Duration.ofSeconds(5))
			.syncReplicas(1)
			.build()) {
			Lease lease = locks.acquire(LockRequest.of(held));
			redis.node(1).pause();
			CompletableFuture<Lease> blocked = locks.acquireAsync(LockRequest.of(waiting));
			await().atMost(Duration.ofSeconds(10)).until(() -> blockedClients(redis.node(0)) >= 1);
			lease.release();
			assertThat(redis.node(0).exists("lock:{" + held + "}")).isFalse();
			assertThat(blockedClients(redis.node(0))).as("the WAIT is still blocked after the release completed")
				.isEqualTo(1);
			assertThat(blocked).isNotDone();
			redis.node(1).resume();
			blocked.handle((granted, error) -> {
				if (granted != null) {
					granted.release();
				}
				return null;
			}).get(30, TimeUnit.SECONDS);
		}
	}

	private static QuorumLockEngine engine(int syncReplicas) {
		return QuorumLockEngine.builder()
			.nodes(redis.node(0).uri())
			.nodeTimeout(Duration.ofMillis(100))
			.syncReplicas(syncReplicas)
			.build();
	}

	@Test
	void grantWaitsUntilTheReplicaHasTheKey() {
		RedisServer replica = redis.node(1);
		attachReplica();
		String key = "k" + UUID.randomUUID();
		// a wait: on a loaded machine the replica may miss one 100 ms WAIT
		try (QuorumLockEngine locks = engine(1);
				Lease lease = locks.acquire(LockRequest.of(key).waitAtMost(Duration.ofSeconds(5)))) {
			// no wait here: WAIT already made sure the replica has it
			assertThat(replica.exists("lock:{" + key + "}")).isTrue();
			assertThat(lease.isValid()).isTrue();
		}
	}

	@Test
	void grantWithoutTheReplicasIsRefusedAndUndone() {
		String key = "k" + UUID.randomUUID();
		try (QuorumLockEngine locks = engine(1)) {
			assertThatExceptionOfType(QuorumUnavailableException.class)
				.isThrownBy(() -> locks.acquire(LockRequest.of(key)))
				.withMessageContaining("WAIT: 0 of 1 replicas acknowledged within 100 ms (sync-replicas)");
			assertThat(redis.node(0).exists("lock:{" + key + "}")).isFalse();
		}
	}

}
