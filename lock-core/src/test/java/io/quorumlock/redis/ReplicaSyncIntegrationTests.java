package io.quorumlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
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
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReplicaSyncIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(2);

	@AfterEach
	void detachReplica() {
		redis.node(1).call("REPLICAOF", "NO", "ONE");
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
		RedisServer master = redis.node(0);
		RedisServer replica = redis.node(1);
		replica.call("REPLICAOF", master.host(), Integer.toString(master.port()));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> String.valueOf(master.call("INFO", "replication")).contains("state=online")
					&& String.valueOf(replica.call("INFO", "replication")).contains("master_link_status:up"));
		String key = "k" + UUID.randomUUID();
		try (QuorumLockEngine locks = engine(1); Lease lease = locks.acquire(LockRequest.of(key))) {
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
