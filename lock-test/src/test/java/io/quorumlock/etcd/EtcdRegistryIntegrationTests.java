package io.quorumlock.etcd;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.quorumlock.Lease;
import io.quorumlock.LockException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.EtcdCluster;
import io.quorumlock.testing.EtcdMembers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What the etcd registry does beyond the shared contract, on one real member: FIFO
 * hand-over in create-revision order, fencing tokens that grow across keys, the refusal
 * of shared locks and permits at call time (nothing written), {@code close()} ending
 * every waiter, and the request-timeout rule for renewing leases.
 */
@EtcdCluster(members = 1)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdRegistryIntegrationTests {

	static EtcdMembers etcd;

	private static EtcdKeys keys;

	private EtcdLockRegistry locks;

	private String name;

	@BeforeAll
	static void connect() {
		keys = new EtcdKeys(etcd.endpoints());
	}

	@AfterAll
	static void disconnect() {
		keys.close();
	}

	@BeforeEach
	void start() {
		this.locks = EtcdLockRegistry.builder().endpoints(etcd.endpoints()).build();
		this.name = "i" + UUID.randomUUID().toString().substring(0, 8);
	}

	@AfterEach
	void stop() {
		this.locks.close();
	}

	private LockRequest request(String key) {
		return LockRequest.of(key).name(this.name).lease(Duration.ofSeconds(10));
	}

	private String lockKey(String key) {
		return "lock:" + this.name + ":{" + key + "}";
	}

	@Test
	void waitersAreServedInTheOrderTheyQueued() throws Exception {
		Lease held = this.locks.acquire(request("k"));
		List<CompletableFuture<Lease>> waiters = new java.util.ArrayList<>();
		for (int i = 0; i < 4; i++) {
			waiters.add(this.locks.acquireAsync(request("k").waitAtMost(Duration.ofSeconds(30))));
			int queued = i + 2;
			org.awaitility.Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> keys.waiters(lockKey("k")).size() == queued);
		}
		long previous = held.fencingToken();
		held.release();
		for (CompletableFuture<Lease> waiter : waiters) {
			Lease next = waiter.get(20, TimeUnit.SECONDS);
			for (CompletableFuture<Lease> later : waiters.subList(waiters.indexOf(waiter) + 1, waiters.size())) {
				assertThat(later).isNotDone();
			}
			assertThat(next.fencingToken()).isGreaterThan(previous);
			previous = next.fencingToken();
			next.release();
		}
	}

	@Test
	void fencingTokensGrowAcrossKeys() {
		long a;
		long ab;
		long b;
		try (Lease lease = this.locks.acquire(request("a"))) {
			a = lease.fencingToken();
		}
		try (Lease lease = this.locks.acquire(LockRequest.of(List.of("a", "b")).name(this.name))) {
			ab = lease.fencingToken();
		}
		try (Lease lease = this.locks.acquire(request("b"))) {
			b = lease.fencingToken();
		}
		assertThat(ab).isGreaterThan(a);
		assertThat(b).isGreaterThan(ab);
	}

	@Test
	void atMostKPermitHoldersAtOnceAndTheNextWaiterIsLetIn() throws Exception {
		EtcdLockRegistry other = EtcdLockRegistry.builder().endpoints(etcd.endpoints()).build();
		try {
			Lease one = this.locks.acquire(request("p").permits(2));
			Lease two = other.acquire(request("p").permits(2));
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> this.locks.acquire(request("p").permits(2)))
				.withMessageContaining("key '" + lockKey("p") + "' (2 permits)")
				.withMessageContaining("held elsewhere");
			assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(one::fencingToken)
				.withMessageContaining("one of several permits");
			// permits keep to their own keys: a plain lock of the key is another lock, as
			// on Redis
			assertThat(this.locks.tryAcquire(request("p"))).hasValueSatisfying(Lease::release);
			CompletableFuture<Lease> third = other
				.acquireAsync(request("p").permits(2).waitAtMost(Duration.ofSeconds(30)));
			org.awaitility.Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> keys.waiters(lockKey("p")).size() == 3);
			assertThat(third).isNotDone();
			// the older of the two holders goes: a permit is free
			one.release();
			Lease granted = third.get(20, TimeUnit.SECONDS);
			assertThat(this.locks.tryAcquire(request("p").permits(2))).isEmpty();
			two.release();
			granted.release();
			assertThat(keys.waiters(lockKey("p"))).isEmpty();
		}
		finally {
			other.close();
		}
	}

	@Test
	void eightThreadsShareThreePermitsNeverMoreAtOnce() throws Exception {
		EtcdLockRegistry other = EtcdLockRegistry.builder().endpoints(etcd.endpoints()).build();
		java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
		try {
			java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
			java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
			List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
			for (int t = 0; t < 8; t++) {
				EtcdLockRegistry registry = (t % 2 == 0) ? this.locks : other;
				done.add(pool.submit(() -> {
					for (int i = 0; i < 10; i++) {
						try (Lease lease = registry
							.acquire(request("sem").permits(3).waitAtMost(Duration.ofSeconds(30)))) {
							most.accumulateAndGet(inside.incrementAndGet(), Math::max);
							Thread.yield();
							inside.decrementAndGet();
						}
					}
					return null;
				}));
			}
			for (java.util.concurrent.Future<?> f : done) {
				f.get(50, TimeUnit.SECONDS);
			}
			assertThat(most.get()).isBetween(1, 3);
		}
		finally {
			pool.shutdownNow();
			other.close();
		}
	}

	@Test
	void aReleaseBeforeTheMinimumHoldKeepsTheKeyForTheRemainder() throws Exception {
		EtcdLockRegistry other = EtcdLockRegistry.builder().endpoints(etcd.endpoints()).build();
		try {
			Lease lease = this.locks.acquire(request("k").holdAtLeast(Duration.ofSeconds(2)));
			long kept = keys.waiters(lockKey("k")).get(0).getCreateRevision();
			lease.release();
			assertThat(lease.isValid()).isFalse();
			// the same key, under a lease of the remainder
			assertThat(keys.waiters(lockKey("k"))).extracting(io.etcd.jetcd.KeyValue::getCreateRevision)
				.containsExactly(kept);
			assertThat(other.tryAcquire(request("k"))).isEmpty();
			try (Lease next = other.acquire(request("k").waitAtMost(Duration.ofSeconds(20)))) {
				assertThat(next.fencingToken()).isGreaterThan(kept);
			}
		}
		finally {
			other.close();
		}
	}

	@Test
	void renewalStopsAtHoldAtMostAndTheLeaseIsThenLost() {
		List<io.quorumlock.LeaseLostException> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
		EtcdLockRegistry watched = EtcdLockRegistry.builder()
			.endpoints(etcd.endpoints())
			.listener(new io.quorumlock.LockListener() {
				@Override
				public void onLost(LockRequest request, Lease lease, io.quorumlock.LeaseLostException cause) {
					lost.add(cause);
				}
			})
			.build();
		try {
			Lease lease = watched.acquire(request("k").lease(Duration.ofSeconds(4)).holdAtMost(Duration.ofSeconds(4)));
			org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> !lost.isEmpty());
			assertThat(lease.isValid()).isFalse();
			assertThat(lost.get(0).getMessage()).contains("expired after renewal stopped at holdAtMost 4000 ms");
			assertThatExceptionOfType(io.quorumlock.LeaseLostException.class).isThrownBy(lease::release);
			try (Lease next = this.locks.acquire(request("k").waitAtMost(Duration.ofSeconds(10)))) {
				assertThat(next.isValid()).isTrue();
			}
		}
		finally {
			watched.close();
		}
	}

	@Test
	void closeEndsEveryWaiterAndFreesWhatItHeld() throws Exception {
		EtcdLockRegistry other = EtcdLockRegistry.builder().endpoints(etcd.endpoints()).build();
		try (Lease held = other.acquire(request("k"))) {
			CompletableFuture<Lease> waiting = this.locks.acquireAsync(request("k").waitAtMost(Duration.ofSeconds(60)));
			org.awaitility.Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> keys.waiters(lockKey("k")).size() == 2);
			this.locks.close();
			assertThat(waiting).failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(java.util.concurrent.ExecutionException.class)
				.withCauseInstanceOf(LockNotAcquiredException.class)
				.withMessageContaining("the registry was closed");
			org.awaitility.Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> keys.waiters(lockKey("k")).size() == 1);
		}
		finally {
			other.close();
		}
		assertThat(keys.waiters(lockKey("k"))).isEmpty();
	}

	@Test
	void aRenewingLeaseMustOutlastThreeRequestTimeouts() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.locks.acquire(request("k").lease(Duration.ofMillis(2500))))
			.withMessageContaining("lease 2500 ms is too short for node timeout 1000 ms");
		try (Lease lease = this.locks.acquire(request("k").lease(Duration.ofMillis(2500)).renew(false))) {
			assertThat(lease.isValid()).isTrue();
		}
	}

	@Test
	void aBlockingAcquireIsInterruptible() throws Exception {
		EtcdLockRegistry other = EtcdLockRegistry.builder().endpoints(etcd.endpoints()).build();
		try (Lease held = other.acquire(request("k"))) {
			CompletableFuture<Throwable> failure = new CompletableFuture<>();
			Thread waiter = new Thread(() -> {
				try {
					this.locks.acquire(request("k").waitAtMost(Duration.ofSeconds(60)));
				}
				catch (LockException ex) {
					failure.complete(ex);
				}
			});
			waiter.start();
			org.awaitility.Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> keys.waiters(lockKey("k")).size() == 2);
			waiter.interrupt();
			assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(LockNotAcquiredException.class)
				.hasMessageContaining("interrupted");
			org.awaitility.Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> keys.waiters(lockKey("k")).size() == 1);
		}
		finally {
			other.close();
		}
	}

}
