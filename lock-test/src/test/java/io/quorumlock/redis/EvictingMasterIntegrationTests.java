package io.quorumlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockException;
import io.quorumlock.LockRequest;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A master whose memory limit and eviction policy can drop lock keys (which have a TTL)
 * under pressure, and so grant a held lock again, does not vote in quorum mode and
 * refuses grants in single mode, unless the operator accepts it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EvictingMasterIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	@AfterEach
	void noLimit() {
		for (int i = 0; i < 3; i++) {
			redis.node(i).call("CONFIG", "SET", "maxmemory", "0");
			redis.node(i).call("CONFIG", "SET", "maxmemory-policy", "noeviction");
		}
	}

	private static void evicting(int node) {
		redis.node(node).call("CONFIG", "SET", "maxmemory", "100mb");
		redis.node(node).call("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
	}

	private static QuorumLockEngine.Builder quorum() {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			.rejoinDelay(Duration.ZERO)
			.nodeTimeout(Duration.ofMillis(200));
	}

	@Test
	void anEvictingMasterDoesNotVoteInQuorumMode() {
		evicting(0);
		try (QuorumLockEngine engine = quorum().build()) {
			await().atMost(Duration.ofSeconds(10)).until(() -> engine.nodes().get(1).voting());
			RegistryStatus.Node node0 = engine.nodes().get(0);
			assertThat(node0.up()).isTrue();
			assertThat(node0.voting()).isFalse();
			assertThat(node0.state()).isEqualTo(RegistryStatus.NodeState.EVICTING);
			assertThat(node0.lastError()).startsWith("evicting: maxmemory-policy volatile-lru");
			// the two others still make a quorum
			engine.acquire(LockRequest.of("k" + UUID.randomUUID())).release();
			evicting(1);
			await().atMost(Duration.ofSeconds(15)).until(() -> !engine.nodes().get(1).voting());
			assertThatExceptionOfType(LockException.class)
				.isThrownBy(() -> engine.acquire(LockRequest.of("k" + UUID.randomUUID())))
				.withMessageContaining("evicting: maxmemory-policy volatile-lru")
				.withMessageContaining("quorumlock.allow-evicting-masters");
		}
	}

	@Test
	void anEvictingMasterVotesWhenTheOperatorAcceptsIt() {
		evicting(0);
		try (QuorumLockEngine engine = quorum().allowEvictingMasters(true).build()) {
			await().atMost(Duration.ofSeconds(10)).until(() -> engine.nodes().get(0).voting());
		}
	}

	@Test
	void singleModeOnAnEvictingMasterRefusesGrantsSayingWhy() {
		evicting(0);
		try (QuorumLockEngine engine = QuorumLockEngine.builder().nodes(redis.node(0).uri()).build()) {
			await().atMost(Duration.ofSeconds(10)).until(() -> engine.nodes().get(0).up());
			assertThatExceptionOfType(LockException.class)
				.isThrownBy(() -> engine.acquire(LockRequest.of("k" + UUID.randomUUID())))
				.withMessageContaining("maxmemory-policy volatile-lru");
			redis.node(0).call("CONFIG", "SET", "maxmemory-policy", "noeviction");
			// read again now and then while it votes not: grants resume
			await().atMost(Duration.ofSeconds(10))
				.ignoreExceptions()
				.untilAsserted(() -> engine.acquire(LockRequest.of("k" + UUID.randomUUID())).release());
		}
	}

	@Test
	void leasesSurviveAnEvictingMasterBeingLeftOut() {
		evicting(2);
		try (QuorumLockEngine engine = quorum().build()) {
			await().atMost(Duration.ofSeconds(10)).until(() -> engine.nodes().get(0).voting());
			Lease lease = engine.acquire(LockRequest.of("k" + UUID.randomUUID()).lease(Duration.ofSeconds(3)));
			assertThat(lease.isValid()).isTrue();
			lease.release();
		}
	}

}
