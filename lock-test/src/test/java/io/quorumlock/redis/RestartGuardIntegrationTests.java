package io.quorumlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Redlock's "delayed restarts": A holds a lock on nodes 0 and 1 while node 2 is down;
 * node 2 comes back and node 0 restarts empty. Without the guard B takes nodes 0 and 2
 * while A's lease lives; with it, B is refused.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RestartGuardIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private String key;

	@BeforeEach
	void name() {
		this.key = "k" + UUID.randomUUID();
	}

	/**
	 * The guard in force must cover every lease: here the one lease used, {@link #LEASE}.
	 */
	private static final Duration LEASE = Duration.ofSeconds(10);

	private static QuorumLockEngine engine(Duration rejoinDelay) {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			// not a test of timeouts: room for a loaded machine's answers
			.nodeTimeout(Duration.ofSeconds(1))
			.defaults(LockOptions.none().lease(LEASE))
			.rejoinDelay(rejoinDelay)
			.build();
	}

	/**
	 * Unrenewed, so that it stays valid on the nodes that hold it while others restart.
	 */
	private LockRequest request() {
		return LockRequest.of(this.key).lease(LEASE).renew(false);
	}

	@Test
	void withoutTheGuardARestartedNodeHandsOutAHeldLockTwice() {
		redis.node(2).kill();
		try (QuorumLockEngine a = engine(Duration.ZERO)) {
			Lease first = a.acquire(request());
			redis.node(2).restart();
			redis.node(0).restart(); // empty: A's key on node 0 is gone
			try (QuorumLockEngine b = engine(Duration.ZERO)) {
				Lease second = b.acquire(request());
				assertThat(first.isValid()).isTrue();
				assertThat(second.isValid()).as("double grant without the restart guard").isTrue();
				second.release();
			}
			first.release();
		}
	}

	@Test
	void withTheGuardTheRestartedNodesAreHeldBack() {
		Duration rejoin = LEASE;
		redis.node(2).kill();
		try (QuorumLockEngine a = engine(rejoin)) {
			// the fixture's servers are fresh too: wait until nodes 0 and 1 have been up
			// long enough
			Lease first = await().atMost(Duration.ofSeconds(40))
				.ignoreExceptions()
				.until(() -> a.tryAcquire(request()), Optional::isPresent)
				.orElseThrow();
			redis.node(2).restart();
			redis.node(0).restart();
			try (QuorumLockEngine b = engine(rejoin)) {
				// B dates node 1's start from its own read, up to a second later than A
				await().atMost(Duration.ofSeconds(10)).until(() -> b.nodes().get(1).countsTowardQuorum());
				assertThatExceptionOfType(QuorumUnavailableException.class).isThrownBy(() -> b.acquire(request()))
					.withMessageContaining("acquired 0 of 3 nodes, quorum 2, 1 answered")
					.withMessageContaining(redis.node(0).port() + ": held back by the restart guard for another")
					.withMessageContaining(redis.node(2).port() + ": held back by the restart guard")
					.withMessageContaining("(rejoin-delay 10 s)");
				assertThat(first.isValid()).isTrue();
				// the guard covers the lease, so the first lease ends before the
				// restarted nodes vote again
				first.release();
				// the restarted nodes vote again once they have been up for the rejoin
				// delay
				LockRequest other = LockRequest.of(this.key + "-other");
				await().atMost(Duration.ofSeconds(40))
					.ignoreExceptions()
					.until(() -> b.tryAcquire(other).map((lease) -> {
						lease.release();
						return true;
					}).orElse(false));
			}
		}
	}

	@Test
	void existingEngineHoldsBackANodeThatRestartsUnderIt() {
		Duration rejoin = LEASE;
		try (QuorumLockEngine a = engine(rejoin)) {
			await().atMost(Duration.ofSeconds(40))
				.ignoreExceptions()
				.until(() -> a.tryAcquire(request()).map((lease) -> {
					lease.release();
					return true;
				}).orElse(false));
			redis.node(0).restart();
			redis.node(1).restart();
			// the engine's connections to 0 and 1 broke; whether it has reconnected to
			// the new processes yet or not, it must not grant, and once reconnected it
			// says why
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThatExceptionOfType(QuorumUnavailableException.class)
					.isThrownBy(() -> a.acquire(request()))
					.withMessageContaining("held back by the restart guard"));
		}
	}

	@Test
	void defaultGuardIsTheLongestDeclaredLeaseOnEveryEngineWhateverRan() {
		QuorumLockEngine.Builder configuration = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.defaults(LockOptions.none().lease(Duration.ofSeconds(30)))
			.instance("slow", LockOptions.none().lease(Duration.ofSeconds(45)));
		try (QuorumLockEngine first = configuration.build(); QuorumLockEngine second = configuration.build()) {
			assertThat(first.rejoinDelay()).isEqualTo(Duration.ofSeconds(45));
			// an instance that ran a longer lease does not move its own guard: it is
			// refused
			assertThatIllegalArgumentException()
				.isThrownBy(() -> first.acquire(LockRequest.of(this.key).lease(Duration.ofSeconds(60))))
				.withMessageContaining("lease 60000 ms is longer than the restart guard in force, 45000 ms "
						+ "(quorumlock.rejoin-delay)");
			assertThat(first.rejoinDelay()).isEqualTo(second.rejoinDelay()).isEqualTo(Duration.ofSeconds(45));
		}
		try (QuorumLockEngine single = QuorumLockEngine.builder().nodes(redis.node(0).uri()).build()) {
			assertThat(single.rejoinDelay()).isZero();
			// a fresh single node is usable at once, and no lease is refused
			single.acquire(LockRequest.of(this.key).lease(Duration.ofMinutes(5))).release();
		}
	}

}
