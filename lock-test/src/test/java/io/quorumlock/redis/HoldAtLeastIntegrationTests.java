package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.CurrentLease;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@code holdAtLeast} on one node and on a quorum of three: a lease released early keeps
 * its keys for the rest of the minimum hold, a lease released late goes at once, and a
 * key this lease no longer holds is never touched. The engine's clock is skewed forward
 * where a test needs time to have passed, so no test waits for a real hold to run out
 * except the one that shows the lock coming free again.
 */
class HoldAtLeastIntegrationTests {

	@Nested
	class SingleNode extends Contract {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(1);

		@Override
		RedisServers redis() {
			return redis;
		}

	}

	@Nested
	class ThreeNodes extends Contract {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(3);

		@Override
		RedisServers redis() {
			return redis;
		}

	}

	@Timeout(value = 60, unit = TimeUnit.SECONDS)
	abstract static class Contract {

		private static final Duration LEASE = Duration.ofSeconds(10);

		private static final Duration HOLD = Duration.ofSeconds(2);

		/**
		 * Not a test of timeouts: room for a loaded machine's answers, below a third of
		 * the shortest lease here.
		 */
		private static final Duration NODE_TIMEOUT = Duration.ofMillis(500);

		/** Added to the engine's clock: time that has "passed" for it. */
		private final AtomicLong skew = new AtomicLong();

		private QuorumLockEngine locks;

		private QuorumLockEngine otherProcess;

		private String name;

		abstract RedisServers redis();

		@BeforeEach
		void startEngines() {
			this.locks = QuorumLockEngine.builder()
				.nodes(redis().uris())
				.nodeTimeout(NODE_TIMEOUT)
				.rejoinDelay(Duration.ZERO)
				.nanoClock(() -> System.nanoTime() + this.skew.get())
				.build();
			this.otherProcess = QuorumLockEngine.builder()
				.nodes(redis().uris())
				.nodeTimeout(NODE_TIMEOUT)
				.rejoinDelay(Duration.ZERO)
				.build();
			this.name = "h" + UUID.randomUUID().toString().substring(0, 8);
		}

		@AfterEach
		void closeEngines() {
			this.locks.close();
			this.otherProcess.close();
		}

		private LockRequest request(String key) {
			return LockRequest.of(key).name(this.name).lease(LEASE).holdAtLeast(HOLD);
		}

		private String redisKey(String key) {
			return "lock:" + this.name + ":{" + key + "}";
		}

		private void awaitOnEveryNode(String redisKey) {
			for (RedisServer node : redis().nodes()) {
				await("key on " + node).atMost(Duration.ofSeconds(5)).until(() -> node.exists(redisKey));
			}
		}

		private void awaitGoneEverywhere(String redisKey) {
			for (RedisServer node : redis().nodes()) {
				await("key gone on " + node).atMost(Duration.ofSeconds(5)).until(() -> !node.exists(redisKey));
			}
		}

		/** The key is on every node, with a TTL cut to at most the minimum hold. */
		private void assertKeptForTheHold(String redisKey) {
			for (RedisServer node : redis().nodes()) {
				await("hold on " + node).atMost(Duration.ofSeconds(5))
					.until(() -> node.pttl(redisKey) > 0 && node.pttl(redisKey) <= HOLD.toMillis());
			}
		}

		@Test
		void earlyReleaseKeepsTheKeyUntilTheHoldIsOver() {
			Lease lease = this.locks.acquire(request("job"));
			awaitOnEveryNode(redisKey("job"));
			lease.release();
			assertThat(lease.isValid()).isFalse();
			assertKeptForTheHold(redisKey("job"));
			assertThat(this.otherProcess.tryAcquire(request("job"))).isEmpty();
			// and once the hold is over, the lock is free again without anyone releasing
			// it
			Lease next = await().atMost(Duration.ofSeconds(20))
				.until(() -> this.otherProcess.tryAcquire(request("job")).orElse(null), (l) -> l != null);
			next.release();
		}

		@Test
		void releaseAfterTheHoldDeletesAtOnce() {
			Lease lease = this.locks.acquire(request("job"));
			awaitOnEveryNode(redisKey("job"));
			this.skew.addAndGet(HOLD.toNanos() + TimeUnit.MILLISECONDS.toNanos(1));
			lease.release();
			awaitGoneEverywhere(redisKey("job"));
			try (Lease next = this.otherProcess.acquire(request("job"))) {
				assertThat(next.isValid()).isTrue();
			}
		}

		@Test
		void withoutHoldAtLeastReleaseDeletesAtOnce() {
			Lease lease = this.locks.acquire(request("job").holdAtLeast(Duration.ZERO));
			lease.release();
			awaitGoneEverywhere(redisKey("job"));
		}

		@Test
		void neverTouchesAKeyAnotherTokenHolds() {
			Lease lease = this.locks.acquire(request("job"));
			awaitOnEveryNode(redisKey("job"));
			for (RedisServer node : redis().nodes()) {
				node.call("SET", redisKey("job"), "someone-else", "PX", "60000");
			}
			lease.release();
			for (RedisServer node : redis().nodes()) {
				assertThat(node.get(redisKey("job"))).isEqualTo("someone-else");
				assertThat(node.pttl(redisKey("job"))).isGreaterThan(LEASE.toMillis());
			}
		}

		@Test
		void aLostLeaseIsNotKeptForTheHold() {
			Lease lease = this.locks.acquire(request("job").renew(false));
			awaitOnEveryNode(redisKey("job"));
			// past the lease for this engine: the lease is lost, though the nodes still
			// have its token
			this.skew.addAndGet(LEASE.toNanos());
			assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::release);
			awaitGoneEverywhere(redisKey("job"));
		}

		@Test
		void reentryReleasesNothingAndTheOutermostReleaseKeepsTheKey() {
			// re-entry is scoped to a call: the execute action is the outer hold
			this.locks.execute(request("job"), () -> {
				Lease outer = CurrentLease.get().orElseThrow();
				awaitOnEveryNode(redisKey("job"));
				Lease inner = this.locks.acquire(request("job"));
				inner.release();
				for (RedisServer node : redis().nodes()) {
					assertThat(node.pttl(redisKey("job"))).isGreaterThan(HOLD.toMillis());
				}
				assertThat(outer.isValid()).isTrue();
				return null;
			});
			assertKeptForTheHold(redisKey("job"));
			assertThat(this.otherProcess.tryAcquire(request("job"))).isEmpty();
		}

		@Test
		void asynchronousReleaseKeepsTheKey() throws Exception {
			Lease lease = this.locks.acquireAsync(request("job")).get(10, TimeUnit.SECONDS);
			awaitOnEveryNode(redisKey("job"));
			lease.releaseAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
			assertKeptForTheHold(redisKey("job"));
			assertThat(this.otherProcess.tryAcquire(request("job"))).isEmpty();
		}

		@Test
		void everyKeyOfASetIsKept() {
			Lease lease = this.locks
				.acquire(LockRequest.of(List.of("a", "b")).name(this.name).lease(LEASE).holdAtLeast(HOLD));
			awaitOnEveryNode(redisKey("a"));
			awaitOnEveryNode(redisKey("b"));
			lease.release();
			assertKeptForTheHold(redisKey("a"));
			assertKeptForTheHold(redisKey("b"));
		}

		@Test
		void renewingLockMayHoldLongerThanItsLease() {
			Duration lease = NODE_TIMEOUT.multipliedBy(3).plusMillis(100);
			Lease held = this.locks.acquire(request("job").lease(lease).renew(true).holdAtLeast(Duration.ofSeconds(5)));
			awaitOnEveryNode(redisKey("job"));
			held.release();
			for (RedisServer node : redis().nodes()) {
				await().atMost(Duration.ofSeconds(5)).until(() -> node.pttl(redisKey("job")) > lease.toMillis());
			}
		}

		@Test
		void holdLongerThanAnUnrenewedLeaseIsRefused() {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> this.locks.acquire(request("job").renew(false).holdAtLeast(Duration.ofSeconds(11))))
				.withMessageContaining("lock '" + this.name + "' key '" + redisKey("job") + "'")
				.withMessageContaining("holdAtLeast 11000 ms is longer than the lease 10000 ms without renewal");
			for (RedisServer node : redis().nodes()) {
				assertThat(node.exists(redisKey("job"))).isFalse();
			}
		}

		@Test
		void negativeHoldIsRefused() {
			assertThatIllegalArgumentException().isThrownBy(() -> LockOptions.none().holdAtLeast(Duration.ofMillis(-1)))
				.withMessage("holdAtLeast must not be negative, was PT-0.001S");
		}

		@Test
		void builderRefusesADefaultHoldLongerThanAnUnrenewedLease() {
			assertThatIllegalArgumentException().isThrownBy(() -> QuorumLockEngine.builder()
				.nodes(redis().uris())
				.instance("report",
						LockOptions.none().lease(Duration.ofSeconds(1)).renew(false).holdAtLeast(Duration.ofSeconds(2)))
				.build())
				.withMessageContaining("instance 'report': holdAtLeast 2000 ms is longer than the lease 1000 ms");
		}

	}

}
