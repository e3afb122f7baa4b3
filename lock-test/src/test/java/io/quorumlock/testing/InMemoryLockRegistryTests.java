package io.quorumlock.testing;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.quorumlock.CurrentLease;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What {@link InMemoryLockRegistry} adds to the registry contract (which
 * {@code io.quorumlock.redis.InMemoryRegistryContractTests} runs on it): renewal bounded
 * by holdAtMost, fencing tokens across peers, defaults, cancellation.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InMemoryLockRegistryTests {

	private final InMemoryLockRegistry locks = new InMemoryLockRegistry();

	private final InMemoryLockRegistry peer = this.locks.peer();

	@AfterEach
	void close() {
		this.locks.close();
		this.peer.close();
	}

	@Test
	void renewingLeaseOutlivesItsLeaseUntilReleased() {
		Lease lease = this.locks.acquire(LockRequest.of("renewed").lease(Duration.ofMillis(150)));
		await().pollDelay(Duration.ofMillis(450)).atMost(Duration.ofSeconds(5)).until(() -> true);
		assertThat(lease.isValid()).isTrue();
		assertThat(lease.remaining()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(150));
		assertThat(this.peer.tryAcquire(LockRequest.of("renewed"))).isEmpty();
		lease.release();
		assertThat(this.peer.tryAcquire(LockRequest.of("renewed"))).hasValueSatisfying(Lease::release);
	}

	@Test
	void renewalStopsAtHoldAtMost() {
		Lease lease = this.locks
			.acquire(LockRequest.of("bounded").lease(Duration.ofMillis(300)).holdAtMost(Duration.ofMillis(350)));
		// renewed at 100, 200 and 300 ms, the last before 350 ms: valid until 600 ms
		await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid());
		Lease next = this.peer.acquire(LockRequest.of("bounded").waitAtMost(Duration.ofSeconds(5)));
		assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::release)
			.withMessageContaining("expired after renewal stopped at holdAtMost 350 ms");
		next.release();
	}

	@Test
	void fencingTokensGrowAcrossPeersAndKeys() {
		long previous = 0;
		for (int i = 0; i < 6; i++) {
			InMemoryLockRegistry registry = (i % 2 == 0) ? this.locks : this.peer;
			try (Lease lease = registry.acquire(LockRequest.of((i % 3 == 0) ? "x" : "y"))) {
				assertThat(lease.fencingToken()).isGreaterThan(previous);
				previous = lease.fencingToken();
			}
		}
	}

	@Test
	void peerNeverReentersThisRegistrysLease() {
		this.locks.execute(LockRequest.of("scoped"), () -> {
			assertThat(CurrentLease.get()).isPresent();
			assertThat(this.peer.tryAcquire(LockRequest.of("scoped"))).isEmpty();
			try (Lease inner = this.locks.acquire(LockRequest.of("scoped"))) {
				assertThat(inner.fencingToken()).isEqualTo(CurrentLease.get().orElseThrow().fencingToken());
			}
			return null;
		});
	}

	@Test
	void partialReentryIsRefused() {
		this.locks.execute(LockRequest.of("a"), () -> {
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> this.locks.acquire(LockRequest.of(List.of("a", "b"))))
				.withMessageContaining("already holds some of these keys");
			return null;
		});
	}

	@Test
	void defaultsApplyToRequestsThatSetNone() {
		try (InMemoryLockRegistry patient = new InMemoryLockRegistry(
				LockOptions.none().waitAtMost(Duration.ofSeconds(10)).renew(false).lease(Duration.ofMillis(200)))) {
			Lease first = patient.acquire(LockRequest.of("d"));
			// the default wait outlasts the default lease: the second caller gets it
			Lease second = patient.acquire(LockRequest.of("d"));
			assertThat(first.isValid()).isFalse();
			assertThat(second.isValid()).isTrue();
			second.release();
		}
	}

	@Test
	void cancelledAsyncAcquisitionLeavesNothingHeld() throws Exception {
		Lease held = this.peer.acquire(LockRequest.of("async"));
		CompletableFuture<Lease> waiting = this.locks
			.acquireAsync(LockRequest.of("async").waitAtMost(Duration.ofSeconds(30)));
		assertThat(waiting.cancel(true)).isTrue();
		held.release();
		try (Lease again = this.peer.acquire(LockRequest.of("async").waitAtMost(Duration.ofSeconds(5)))) {
			assertThat(again.isValid()).isTrue();
		}
	}

	@Test
	void releaseBeforeHoldAtLeastKeepsTheKeyForTheRemainder() {
		this.locks.acquire(LockRequest.of("job").holdAtLeast(Duration.ofMillis(600))).release();
		assertThat(this.peer.tryAcquire(LockRequest.of("job"))).isEmpty();
		Lease next = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.peer.tryAcquire(LockRequest.of("job")), Optional::isPresent)
			.get();
		next.release();
	}

	@Test
	void waiterTakesTheKeyWhenTheMinimumHoldIsOver() {
		this.locks.acquire(LockRequest.of("job").holdAtLeast(Duration.ofMillis(300))).release();
		Lease next = this.peer.acquire(LockRequest.of("job").waitAtMost(Duration.ofSeconds(10)));
		assertThat(next.isValid()).isTrue();
		next.release();
	}

	@Test
	void optionsPerNameComeBetweenTheRequestsAndTheDefaults() {
		try (InMemoryLockRegistry named = new InMemoryLockRegistry(LockOptions.none().lease(Duration.ofSeconds(20)),
				Map.of("orders", LockOptions.none().lease(Duration.ofSeconds(5))))) {
			try (Lease orders = named.acquire(LockRequest.of("1").name("orders"));
					Lease other = named.acquire(LockRequest.of("1").name("other"));
					Lease own = named.acquire(LockRequest.of("2").name("orders").lease(Duration.ofSeconds(2)))) {
				assertThat(orders.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(5))
					.isGreaterThan(Duration.ofSeconds(2));
				assertThat(other.remaining()).isGreaterThan(Duration.ofSeconds(5));
				assertThat(own.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(2));
			}
		}
	}

	@Test
	void extendingALeaseRenewedWithHoldAtMostMovesTheEndOfRenewal() {
		Lease lease = this.locks
			.acquire(LockRequest.of("bounded").lease(Duration.ofMillis(150)).holdAtMost(Duration.ofMillis(300)));
		assertThat(lease.extend(Duration.ofSeconds(10))).isTrue();
		// past the first holdAtMost and a lease after it, still renewed
		await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(lease::isValid);
		lease.release();
	}

}
