package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The contract of {@link io.quorumlock.DistributedLockRegistry}, run against every
 * topology of the engine by {@link QuorumLockEngineIntegrationTests} (through
 * {@link RedisRegistryContract}, which also checks the keys on the servers) and against
 * lock-test's in-memory registry. Each test uses a fresh lock name, and a second registry
 * stands for another process.
 *
 * @param <R> the registry under test
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class DistributedLockRegistryContract<R extends DistributedLockRegistry & AutoCloseable> {

	private static final Duration LEASE = Duration.ofSeconds(10);

	/**
	 * The lease of tests that let one run out: more than three node timeouts of
	 * {@link RedisRegistryContract}'s engines, whose answers a loaded machine may delay.
	 */
	static final Duration SHORT_LEASE = Duration.ofMillis(1600);

	protected R locks;

	protected R otherProcess;

	private String name;

	/** A new registry: this process. */
	abstract R registry();

	/** A registry over the same locks standing for another process. */
	abstract R otherProcess(R first);

	/** Hook run before the registries start, for topologies with a node down. */
	void prepareServers() {
	}

	/** Check that a held lock is visible where it is stored. */
	void assertStored(String redisKey, Duration lease) {
	}

	/** Check that a released lock is gone from where it was stored. */
	void assertNotStored(String redisKey) {
	}

	/** Check that a key lives longer than {@code atLeast} where it is stored. */
	void assertStoredLongerThan(String redisKey, Duration atLeast) {
	}

	/** Check that the newer owner of a key still holds it where a holder must. */
	void assertHeldByNewerOwner(String redisKey) {
	}

	@BeforeEach
	void startEngines() {
		prepareServers();
		this.locks = registry();
		this.otherProcess = otherProcess(this.locks);
		this.name = "t" + UUID.randomUUID().toString().substring(0, 8);
	}

	@AfterEach
	void closeEngines() throws Exception {
		this.locks.close();
		this.otherProcess.close();
	}

	LockRequest request(String key) {
		return LockRequest.of(key).name(this.name).lease(LEASE);
	}

	String redisKey(String key) {
		return "lock:" + this.name + ":{" + key + "}";
	}

	@Test
	void acquireThenRelease() {
		Lease lease = this.locks.acquire(request("a"));
		assertThat(lease.isValid()).isTrue();
		assertThat(lease.keys()).containsExactly("a");
		assertThat(lease.remaining()).isPositive().isLessThanOrEqualTo(LEASE);
		assertStored(redisKey("a"), LEASE);
		lease.release();
		assertThat(lease.isValid()).isFalse();
		assertThat(lease.remaining()).isZero();
		assertNotStored(redisKey("a"));
		lease.release(); // idempotent
	}

	@Test
	void secondOwnerIsRefused() {
		try (Lease lease = this.locks.acquire(request("a"))) {
			assertThat(this.otherProcess.tryAcquire(request("a"))).isEmpty();
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> this.otherProcess.acquire(request("a")))
				.withMessageContaining("lock '" + this.name + "' key '" + redisKey("a") + "'")
				.withMessageContaining("held elsewhere")
				.withMessageContaining("ms elapsed");
			assertThat(lease.isValid()).isTrue();
		}
	}

	@Test
	void anotherThreadOfTheSameProcessIsRefused() throws Exception {
		try (Lease lease = this.locks.acquire(request("a"))) {
			Optional<Lease> other = CompletableFuture.supplyAsync(() -> this.locks.tryAcquire(request("a")))
				.get(10, TimeUnit.SECONDS);
			assertThat(other).isEmpty();
		}
	}

	@Test
	void independentKeysDoNotExcludeEachOther() {
		try (Lease a = this.locks.acquire(request("a")); Lease b = this.otherProcess.acquire(request("b"))) {
			assertThat(a.isValid()).isTrue();
			assertThat(b.isValid()).isTrue();
		}
	}

	@Test
	void canBeAcquiredAgainAfterRelease() {
		this.locks.acquire(request("a")).release();
		try (Lease again = this.otherProcess.acquire(request("a"))) {
			assertThat(again.isValid()).isTrue();
		}
		try (Lease third = this.locks.acquire(request("a"))) {
			assertThat(third.isValid()).isTrue();
		}
	}

	@Test
	void aQueryTellsWhetherAKeyIsHeldAndByWhom() throws Exception {
		assertThat(this.locks.isLocked(request("q"))).isFalse();
		Lease lease = this.otherProcess.acquire(request("q"));
		assertThat(this.locks.isLocked(request("q"))).isTrue();
		assertThat(this.locks.isLockedAsync(request("q")).get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.locks.isHeldByThisInstance(request("q"))).isFalse();
		assertThat(this.otherProcess.isHeldByThisInstance(request("q"))).isTrue();
		// a lease from acquire belongs to no thread
		assertThat(this.otherProcess.isHeldByCurrentThread(request("q"))).isFalse();
		assertThat(this.locks.isLocked(request("other"))).isFalse();
		lease.release();
		assertThat(this.locks.isLocked(request("q"))).isFalse();
		assertThat(this.otherProcess.isHeldByThisInstance(request("q"))).isFalse();
	}

	@Test
	void theCurrentThreadHoldsAKeyWithinTheScopeOfItsLease() throws Exception {
		boolean[] inScope = new boolean[2];
		this.locks.execute(request("q"), () -> {
			inScope[0] = this.locks.isHeldByCurrentThread(request("q"));
			inScope[1] = CompletableFuture.supplyAsync(() -> this.locks.isHeldByCurrentThread(request("q")))
				.get(10, TimeUnit.SECONDS);
			return null;
		});
		assertThat(inScope[0]).as("within the action").isTrue();
		assertThat(inScope[1]).as("on another thread meanwhile").isFalse();
		Lock lock = this.locks.asLock(request("q"));
		lock.lock();
		try {
			assertThat(this.locks.isHeldByCurrentThread(request("q"))).isTrue();
		}
		finally {
			lock.unlock();
		}
		assertThat(this.locks.isHeldByCurrentThread(request("q"))).isFalse();
	}

	@Test
	void aLeasePastItsValidityNoLongerHoldsItsKey() {
		Lease lease = this.locks.acquire(request("q").lease(SHORT_LEASE).renew(false));
		assertThat(this.locks.isHeldByThisInstance(request("q"))).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid());
		assertThat(this.locks.isHeldByThisInstance(request("q"))).isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.otherProcess.isLocked(request("q")));
	}

	@Test
	void aQueryIsAboutOneKeyWithoutPermits() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.locks.isLocked(LockRequest.of(List.of("a", "b")).name(this.name)))
			.withMessageContaining("one key");
		assertThatIllegalArgumentException().isThrownBy(() -> this.locks.isHeldByCurrentThread(request("q").permits(3)))
			.withMessageContaining("without permits");
	}

	@Test
	void expiresAfterTheLease() {
		Lease lease = this.locks.acquire(request("a").lease(SHORT_LEASE).renew(false));
		await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid());
		assertThat(lease.remaining()).isZero();
		Lease next = this.otherProcess.acquire(request("a").waitAtMost(Duration.ofSeconds(5)));
		assertThat(next.isValid()).isTrue();
		next.release();
	}

	@Test
	void extendedLeaseOutlivesItsLease() {
		Duration shortLease = SHORT_LEASE;
		Lease extended = this.locks.acquire(request("a").lease(shortLease).renew(false));
		// taken after the first, so it runs out after the first's original end
		Lease witness = this.locks.acquire(request("b").lease(shortLease).renew(false));
		assertThat(extended.extend(LEASE)).isTrue();
		assertStoredLongerThan(redisKey("a"), shortLease);
		await().atMost(Duration.ofSeconds(5)).until(() -> !witness.isValid());
		assertThat(extended.isValid()).isTrue();
		assertThat(extended.remaining()).isGreaterThan(shortLease);
		assertThat(this.otherProcess.tryAcquire(request("a"))).isEmpty();
		this.otherProcess.acquire(request("b").waitAtMost(Duration.ofSeconds(5))).release();
		extended.release();
		assertNotStored(redisKey("a"));
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(witness::release);
	}

	@Test
	void leaseNoLongerHeldIsNotExtended() {
		Lease released = this.locks.acquire(request("a").renew(false));
		released.release();
		assertThat(released.extend(LEASE)).isFalse();
		assertThat(released.extendAsync(LEASE).join()).isFalse();
		Lease expired = this.locks.acquire(request("b").lease(SHORT_LEASE).renew(false));
		await().atMost(Duration.ofSeconds(5)).until(() -> !expired.isValid());
		assertThat(expired.extend(LEASE)).isFalse();
		assertThat(expired.isValid()).isFalse();
		try (Lease next = this.otherProcess.acquire(request("b").waitAtMost(Duration.ofSeconds(5)))) {
			assertThat(next.isValid()).isTrue();
		}
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(expired::release);
	}

	@Test
	void extendRefusesARenewingLeaseAndABadLease() {
		try (Lease renewing = this.locks.acquire(request("a"))) {
			assertThatIllegalStateException().isThrownBy(() -> renewing.extend(LEASE))
				.withMessageContaining("key '" + redisKey("a") + "'")
				.withMessageContaining("renew(false)");
		}
		try (Lease lease = this.locks.acquire(request("b").renew(false))) {
			assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(Duration.ofSeconds(-1)))
				.withMessageContaining("lease must be positive, was PT-1S");
			assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(null))
				.withMessageContaining("lease must be positive, was null");
			assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(LEASE, LEASE.plusSeconds(1)))
				.withMessageContaining("holdAtLeast");
			assertThat(lease.isValid()).isTrue();
		}
	}

	@Test
	void reentryExtendsTheLeaseItReentered() {
		Duration shortLease = SHORT_LEASE;
		this.locks.execute(request("a").lease(shortLease).renew(false), () -> {
			Lease outer = CurrentLease.get().orElseThrow();
			try (Lease inner = this.locks.acquire(request("a").lease(shortLease).renew(false))) {
				assertThat(inner.extend(LEASE)).isTrue();
			}
			assertThat(outer.remaining()).isGreaterThan(shortLease);
			return null;
		});
		assertNotStored(redisKey("a"));
	}

	@Test
	void waiterGetsTheLockWhenItIsReleased() throws Exception {
		Lease held = this.locks.acquire(request("a"));
		CountDownLatch waiting = new CountDownLatch(1);
		CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> {
			waiting.countDown();
			return this.otherProcess.acquire(request("a").waitAtMost(Duration.ofSeconds(20)));
		});
		waiting.await();
		assertThat(waiter).isNotDone();
		held.release();
		Lease next = waiter.get(20, TimeUnit.SECONDS);
		assertThat(next.isValid()).isTrue();
		next.release();
	}

	@Test
	void waiterGivesUpWhenTheWaitRunsOut() {
		try (Lease held = this.locks.acquire(request("a"))) {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> this.otherProcess.acquire(request("a").waitAtMost(Duration.ofMillis(300))))
				.withMessageContaining("waited at most 300 ms");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
			assertThat(held.isValid()).isTrue();
		}
	}

	@Test
	void releasedLeaseCannotDeleteANewerOwnersKey() {
		Lease stale = this.locks.acquire(request("a").lease(SHORT_LEASE).renew(false));
		Lease newer = this.otherProcess.acquire(request("a").waitAtMost(Duration.ofSeconds(5)));
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(stale::release)
			.withMessageContaining(
					"lease lost, expired unrenewed after its lease of " + SHORT_LEASE.toMillis() + " ms");
		assertThat(newer.isValid()).isTrue();
		assertHeldByNewerOwner(redisKey("a"));
		assertThat(this.locks.tryAcquire(request("a"))).isEmpty();
		newer.release();
	}

	@Test
	void reentryCountsLocallyWithinTheScopeOfTheOuterCall() {
		this.locks.execute(request("a"), () -> {
			Lease inner = this.locks.acquire(request("a"));
			assertThat(inner).isNotSameAs(CurrentLease.get().orElseThrow());
			assertThat(inner.isValid()).isTrue();
			inner.release();
			assertThat(CurrentLease.get().orElseThrow().isValid()).isTrue();
			assertThat(this.otherProcess.tryAcquire(request("a"))).isEmpty();
			return null;
		});
		try (Lease other = this.otherProcess.acquire(request("a"))) {
			assertThat(other.isValid()).isTrue();
		}
	}

	@Test
	void aLeaseReturnedToTheCallerBelongsToNoThread() {
		try (Lease outer = this.locks.acquire(request("a"))) {
			// the lease may have been handed on: the same thread is just another caller
			assertThat(this.locks.tryAcquire(request("a"))).isEmpty();
			assertThat(outer.isValid()).isTrue();
		}
	}

	@Test
	void anExpiredLeaseThatWasNeverReleasedDoesNotBlockItsOwnProcess() {
		Lease stale = this.locks.acquire(request("a").lease(SHORT_LEASE).renew(false));
		// the same process, as another process would: it waits for the lease to run out,
		// not for a release that may never come
		Lease newer = this.locks.acquire(request("a").waitAtMost(Duration.ofSeconds(5)));
		assertThat(stale.isValid()).isFalse();
		assertThat(newer.isValid()).isTrue();
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(stale::release)
			.withMessageContaining(
					"lease lost, expired unrenewed after its lease of " + SHORT_LEASE.toMillis() + " ms");
		assertThat(newer.isValid()).isTrue();
		assertHeldByNewerOwner(redisKey("a"));
		assertThat(this.otherProcess.tryAcquire(request("a"))).isEmpty();
		newer.release();
		assertThat(this.otherProcess.tryAcquire(request("a"))).hasValueSatisfying(Lease::release);
	}

	@Test
	void aLockViewWhoseLeaseExpiredIsFreeForTheNextThread() throws Exception {
		Lock lock = this.locks.asLock(request("view").lease(SHORT_LEASE).renew(false));
		lock.lock();
		ExecutorService other = Executors.newSingleThreadExecutor();
		try {
			assertThat(other.submit(() -> {
				boolean locked = lock.tryLock(5, TimeUnit.SECONDS);
				if (locked) {
					lock.unlock();
				}
				return locked;
			}).get(10, TimeUnit.SECONDS)).as("taken by another thread once the lease ran out").isTrue();
			assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lock::unlock);
			assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		}
		finally {
			other.shutdownNow();
		}
	}

	@Test
	void reentryIntoALostLeaseFails() {
		assertThatExceptionOfType(LeaseLostException.class)
			.isThrownBy(() -> this.locks.execute(request("a").lease(SHORT_LEASE).renew(false), () -> {
				Lease lease = CurrentLease.get().orElseThrow();
				await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid());
				assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> this.locks.acquire(request("a")))
					.withMessageContaining("release it before locking again");
				return null;
			}));
		try (Lease again = this.locks.acquire(request("a").waitAtMost(Duration.ofSeconds(5)))) {
			assertThat(again.isValid()).isTrue();
		}
	}

	@Test
	void severalKeysAreAllOrNothing() {
		try (Lease blocker = this.otherProcess.acquire(request("b"))) {
			assertThat(this.locks.tryAcquire(LockRequest.of(List.of("c", "b", "a")).name(this.name).lease(LEASE)))
				.isEmpty();
			// nothing was left behind on the keys that were free
			assertThat(this.otherProcess.tryAcquire(request("a"))).hasValueSatisfying(Lease::release);
			assertThat(this.otherProcess.tryAcquire(request("c"))).hasValueSatisfying(Lease::release);
		}
		try (Lease all = this.locks.acquire(LockRequest.of(List.of("c", "b", "a")).name(this.name).lease(LEASE))) {
			assertThat(all.keys()).containsExactly("a", "b", "c");
			assertThat(this.otherProcess.tryAcquire(request("b"))).isEmpty();
		}
		assertThat(this.otherProcess.tryAcquire(request("b"))).hasValueSatisfying(Lease::release);
	}

	@Test
	void acquireAsyncCompletesWithALease() throws Exception {
		Lease lease = this.locks.acquireAsync(request("a")).get(10, TimeUnit.SECONDS);
		assertThat(lease.isValid()).isTrue();
		assertThat(this.otherProcess.tryAcquire(request("a"))).isEmpty();
		lease.release();
		assertThatThrownBy(() -> {
			try (Lease held = this.otherProcess.acquire(request("a"))) {
				this.locks.acquireAsync(request("a")).join();
			}
		}).hasCauseInstanceOf(LockNotAcquiredException.class);
	}

	@Test
	void executeReleasesWhateverTheActionDoes() {
		assertThat(this.locks.execute(request("a"), () -> {
			assertThat(this.otherProcess.tryAcquire(request("a"))).isEmpty();
			return 42;
		})).isEqualTo(42);
		assertThatThrownBy(() -> this.locks.execute(request("a"), () -> {
			throw new IllegalStateException("boom");
		})).hasMessage("boom");
		assertThat(this.otherProcess.tryAcquire(request("a"))).hasValueSatisfying(Lease::release);
	}

	@Test
	void lockViewIsReentrantAndChecksTheOwner() throws Exception {
		Lock lock = this.locks.asLock("view-" + this.name);
		lock.lock();
		lock.lock();
		ExecutorService other = Executors.newSingleThreadExecutor();
		try {
			assertThat(other.submit((java.util.concurrent.Callable<Boolean>) lock::tryLock).get(10, TimeUnit.SECONDS))
				.isFalse();
			Future<?> foreignUnlock = other.submit((Runnable) lock::unlock);
			assertThatThrownBy(() -> foreignUnlock.get(10, TimeUnit.SECONDS))
				.hasCauseInstanceOf(IllegalMonitorStateException.class);
			lock.unlock();
			assertThat(other.submit((java.util.concurrent.Callable<Boolean>) lock::tryLock).get(10, TimeUnit.SECONDS))
				.isFalse();
			lock.unlock();
			assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
			assertThat(other.submit(() -> {
				boolean locked = lock.tryLock(5, TimeUnit.SECONDS);
				lock.unlock();
				return locked;
			}).get(10, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			other.shutdownNow();
		}
	}

	@Test
	void eightThreadsOfTwoProcessesCountExactly() throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(CounterFuzz.THREADS);
		try {
			CounterFuzz.run(pool, this.locks, this.otherProcess, () -> request("counter"));
		}
		finally {
			pool.shutdownNow();
		}
	}

}
