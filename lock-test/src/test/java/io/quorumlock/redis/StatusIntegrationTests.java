package io.quorumlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.CurrentLease;
import io.quorumlock.Lease;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockRequest;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The read-only status view and the operator actions the actuator builds on.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StatusIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private static QuorumLockEngine engine(Duration rejoinDelay) {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			// not a test of timeouts: room for a loaded machine's answers
			.nodeTimeout(Duration.ofSeconds(1))
			.rejoinDelay(rejoinDelay)
			.build();
	}

	@Test
	void showsNodesAndTheLeasesThisInstanceHolds() {
		try (QuorumLockEngine locks = engine(Duration.ZERO)) {
			assertThat(locks.mode()).isEqualTo("quorum");
			assertThat(locks.quorum()).isEqualTo(2);
			assertThat(locks.nodes()).hasSize(3).allSatisfy((node) -> {
				assertThat(node.up()).isTrue();
				assertThat(node.voting()).isTrue();
				assertThat(node.uptime()).isGreaterThanOrEqualTo(Duration.ZERO);
				assertThat(node.heldBackFor()).isZero();
				assertThat(node.address()).startsWith("127.0.0.1:");
			});
			assertThat(locks.quorumAvailable()).isTrue();
			assertThat(locks.leases()).isEmpty();
			String key = "k" + UUID.randomUUID();
			locks.execute(LockRequest.of(key).name("orders").lease(Duration.ofSeconds(10)), () -> {
				Lease lease = CurrentLease.get().orElseThrow();
				assertThat(locks.leases()).singleElement().satisfies((held) -> {
					assertThat(held.lock()).isEqualTo("orders");
					assertThat(held.keys()).containsExactly("lock:orders:{" + key + "}");
					assertThat(held.remaining()).isPositive();
					assertThat(held.fencingToken()).isEmpty();
					assertThat(held.holdCount()).isEqualTo(1);
				});
				long token = lease.fencingToken();
				try (Lease again = locks.acquire(LockRequest.of(key).name("orders"))) {
					assertThat(locks.leases()).singleElement().satisfies((held) -> {
						assertThat(held.fencingToken()).hasValue(token);
						assertThat(held.holdCount()).isEqualTo(2);
					});
				}
				// a grant returns on a quorum: the last node's answer may still be on its
				// way
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(locks.nodes())
						.allSatisfy((node) -> assertThat(node.lastLatency()).isPositive()));
				return null;
			});
			assertThat(locks.leases()).isEmpty();
			redis.node(1).kill();
			await().atMost(Duration.ofSeconds(5)).until(() -> !locks.nodes().get(1).up());
			assertThat(locks.quorumAvailable()).isTrue();
			redis.node(2).kill();
			await().atMost(Duration.ofSeconds(5)).until(() -> !locks.quorumAvailable());
		}
	}

	@Test
	void eachNodeSaysItsStateSinceWhenWhyAndHowItAnswered() {
		// a generous node timeout: this is about status, and a busy machine must not
		// turn a grant into a quorum failure
		try (QuorumLockEngine locks = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofSeconds(1))
			.rejoinDelay(Duration.ZERO)
			.build()) {
			Instant started = Instant.now();
			await().atMost(Duration.ofSeconds(5))
				.until(() -> locks.nodes().stream().allMatch(RegistryStatus.Node::voting));
			assertThat(locks.nodes()).allSatisfy((node) -> {
				assertThat(node.state()).isEqualTo(RegistryStatus.NodeState.VOTING);
				assertThat(node.lastError()).isNull();
				assertThat(node.since()).isNotNull();
			});
			locks.acquire(LockRequest.of("k" + UUID.randomUUID())).release();
			// a grant returns on a quorum: the last node's answers may still be on their
			// way
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(locks.nodes())
					.allSatisfy((node) -> assertThat(node.answers().yes()).isPositive()));
			Instant votingSince = locks.nodes().get(1).since();
			assertThat(locks.nodes().get(1).since()).as("unchanged while the state is").isEqualTo(votingSince);
			redis.node(1).kill();
			await().atMost(Duration.ofSeconds(5)).until(() -> !locks.nodes().get(1).up());
			RegistryStatus.Node down = locks.nodes().get(1);
			assertThat(down.state()).isEqualTo(RegistryStatus.NodeState.DOWN);
			assertThat(down.lastError()).startsWith("not connected");
			assertThat(down.since()).isAfterOrEqualTo(started).isAfter(votingSince);
			locks.acquire(LockRequest.of("k" + UUID.randomUUID())).release();
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(locks.nodes().get(1).answers().notConnected()).isPositive());
			redis.node(1).restart();
			await().atMost(Duration.ofSeconds(20)).until(() -> locks.nodes().get(1).voting());
			RegistryStatus.Node back = locks.nodes().get(1);
			assertThat(back.state()).isEqualTo(RegistryStatus.NodeState.VOTING);
			assertThat(back.since()).isAfter(down.since());
			// once it votes again, the last failure it had
			assertThat(back.lastError()).isNotNull();
		}
	}

	@Test
	void showsNodesHeldBackByTheRestartGuard() {
		try (QuorumLockEngine locks = engine(Duration.ofMinutes(5))) {
			assertThat(locks.nodes()).allSatisfy((node) -> {
				assertThat(node.up()).isTrue();
				assertThat(node.voting()).isFalse();
				// the guard, widened by the clock-drift factor
				assertThat(node.heldBackFor()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(306));
			});
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(locks.nodes()).allSatisfy((node) -> {
				assertThat(node.state()).isEqualTo(RegistryStatus.NodeState.HELD_BACK);
				assertThat(node.lastError()).startsWith("held back by the restart guard for another");
			}));
			assertThat(locks.quorumAvailable()).isFalse();
		}
	}

	@Test
	void theRestartGuardsOwnKeysAreNeitherLockedNorForceUnlocked() {
		try (QuorumLockEngine locks = engine(Duration.ZERO)) {
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> locks.acquire(LockRequest.of("quorumlock:marker")))
				.withMessageContaining("lock key 'quorumlock:marker': keys starting with 'quorumlock:'")
				.withMessageContaining("are reserved for quorumlock's own records");
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> locks.tryAcquire(LockRequest.of("quorumlock:pending")));
			// under a name it is an ordinary key
			assertThat(locks.tryAcquire(LockRequest.of("quorumlock:marker").name("jobs")))
				.hasValueSatisfying(Lease::release);
			assertThatIllegalArgumentException().isThrownBy(() -> locks.forceUnlock("lock:{quorumlock:marker}"))
				.withMessageContaining("'lock:{quorumlock:marker}' is one of quorumlock's own keys");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> locks.forceUnlock("lock:{quorumlock:pending}:released"));
		}
	}

	@Test
	void forceUnlockDeletesWhoeverHoldsTheKey() {
		try (QuorumLockEngine holder = engine(Duration.ZERO); QuorumLockEngine operator = engine(Duration.ZERO)) {
			String key = "k" + UUID.randomUUID();
			Lease lease = holder.acquire(LockRequest.of(key).lease(Duration.ofSeconds(30)).renew(false));
			// the grant returns at a quorum: wait for the last master's SET before
			// counting deletions
			await().atMost(Duration.ofSeconds(5))
				.until(() -> redis.nodes().stream().allMatch((node) -> node.exists("lock:{" + key + "}")));
			assertThat(operator.forceUnlock("lock:{" + key + "}")).isEqualTo(3);
			assertThat(operator.tryAcquire(LockRequest.of(key))).hasValueSatisfying(Lease::release);
			assertThat(operator.forceUnlock("lock:{" + key + "}")).isZero();
			assertThatIllegalArgumentException().isThrownBy(() -> operator.forceUnlock("session:42"))
				.withMessageContaining("'session:42' is not a lock key under the prefix 'lock:'");
			lease.release();
		}
	}

	@Test
	void reportsLockKeysWithoutTtl() {
		redis.node(0).call("SET", "lock:{leaked}", "x");
		redis.node(0).call("SET", "lock:{fine}", "x", "PX", "60000");
		redis.node(0).call("SET", "other:{no-ttl}", "x");
		try (QuorumLockEngine locks = engine(Duration.ZERO)) {
			assertThat(locks.keysWithoutTtl(10))
				.containsExactly(redis.node(0).host() + ":" + redis.node(0).port() + " lock:{leaked}");
		}
	}

	@Test
	void singleNodeStatus() {
		try (QuorumLockEngine single = QuorumLockEngine.builder().nodes(redis.node(0).uri()).build()) {
			RegistryStatus status = single;
			assertThat(status.mode()).isEqualTo("single");
			assertThat(status.quorum()).isEqualTo(1);
			assertThat(status.quorumAvailable()).isTrue();
		}
	}

}
