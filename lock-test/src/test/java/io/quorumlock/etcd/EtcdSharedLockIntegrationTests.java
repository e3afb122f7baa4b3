package io.quorumlock.etcd;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.quorumlock.CurrentLease;
import io.quorumlock.Lease;
import io.quorumlock.LockMode;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.LockUpgradeException;
import io.quorumlock.testing.EtcdCluster;
import io.quorumlock.testing.EtcdMembers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Shared locks on etcd, in revision order: shared holders coexist, an exclusive holder
 * excludes them and they exclude it, a waiting exclusive request is not passed by later
 * shared ones, waiting shared requests are let in together, an exclusive holder re-enters
 * as shared and a shared holder cannot upgrade; a shared lease has no fencing token.
 */
@EtcdCluster(members = 1)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdSharedLockIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(10);

	static EtcdMembers etcd;

	private static EtcdKeys keys;

	private EtcdLockRegistry locks;

	private EtcdLockRegistry otherProcess;

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
		this.otherProcess = EtcdLockRegistry.builder().endpoints(etcd.endpoints()).build();
		this.name = "s" + UUID.randomUUID().toString().substring(0, 8);
	}

	@AfterEach
	void stop() {
		this.locks.close();
		this.otherProcess.close();
	}

	private LockRequest shared(String key) {
		return LockRequest.of(key).name(this.name).lease(LEASE).mode(LockMode.SHARED);
	}

	private LockRequest exclusive(String key) {
		return LockRequest.of(key).name(this.name).lease(LEASE);
	}

	private String lockKey(String key) {
		return "lock:" + this.name + ":{" + key + "}";
	}

	@Test
	void sharedHoldersCoexistAcrossProcessesAndThreads() throws Exception {
		try (Lease one = this.locks.acquire(shared("a")); Lease two = this.otherProcess.acquire(shared("a"))) {
			Lease three = CompletableFuture.supplyAsync(() -> this.locks.acquire(shared("a")))
				.get(10, TimeUnit.SECONDS);
			assertThat(one.isValid()).isTrue();
			assertThat(two.isValid()).isTrue();
			assertThat(three.isValid()).isTrue();
			assertThat(keys.waiters(lockKey("a"))).hasSize(3);
			three.release();
			assertThat(keys.waiters(lockKey("a"))).hasSize(2);
		}
		assertThat(keys.waiters(lockKey("a"))).isEmpty();
	}

	@Test
	void anExclusiveHolderExcludesSharedOnesAndTheyExcludeIt() {
		try (Lease lease = this.locks.acquire(exclusive("a"))) {
			assertThat(this.otherProcess.tryAcquire(shared("a"))).isEmpty();
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> this.otherProcess.acquire(shared("a")))
				.withMessageContaining("key '" + lockKey("a") + "' (shared)")
				.withMessageContaining("held elsewhere");
		}
		try (Lease lease = this.otherProcess.acquire(shared("a"))) {
			assertThat(this.locks.tryAcquire(exclusive("a"))).isEmpty();
			assertThat(this.locks.tryAcquire(shared("a"))).hasValueSatisfying(Lease::release);
		}
		assertThat(this.locks.tryAcquire(exclusive("a"))).hasValueSatisfying(Lease::release);
	}

	@Test
	void aWaitingExclusiveRequestIsNotPassedByLaterSharedOnes() throws Exception {
		Lease reader = this.locks.acquire(shared("a"));
		CompletableFuture<Lease> writer = this.otherProcess
			.acquireAsync(exclusive("a").waitAtMost(Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> keys.waiters(lockKey("a")).size() == 2);
		// a new reader queues behind the waiting writer
		assertThat(this.locks.tryAcquire(shared("a"))).isEmpty();
		CompletableFuture<Lease> laterReader = this.locks.acquireAsync(shared("a").waitAtMost(Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> keys.waiters(lockKey("a")).size() == 3);
		assertThat(writer).isNotDone();
		reader.release();
		Lease written = writer.get(20, TimeUnit.SECONDS);
		assertThat(laterReader).isNotDone();
		written.release();
		laterReader.get(20, TimeUnit.SECONDS).release();
	}

	@Test
	void waitingSharedRequestsAreLetInTogether() throws Exception {
		Lease writer = this.locks.acquire(exclusive("a"));
		CompletableFuture<Lease> one = this.otherProcess.acquireAsync(shared("a").waitAtMost(Duration.ofSeconds(30)));
		CompletableFuture<Lease> two = this.locks.acquireAsync(shared("a").waitAtMost(Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> keys.waiters(lockKey("a")).size() == 3);
		writer.release();
		Lease first = one.get(20, TimeUnit.SECONDS);
		Lease second = two.get(20, TimeUnit.SECONDS);
		assertThat(first.isValid()).isTrue();
		assertThat(second.isValid()).isTrue();
		first.release();
		second.release();
	}

	@Test
	void anExclusiveHolderReentersAsSharedAndASharedHolderCannotUpgrade() {
		this.locks.execute(exclusive("a"), () -> {
			try (Lease inner = this.locks.acquire(shared("a"))) {
				assertThat(inner.isValid()).isTrue();
			}
			assertThat(CurrentLease.get().orElseThrow().isValid()).isTrue();
			return null;
		});
		this.locks.execute(shared("b"), () -> {
			assertThatExceptionOfType(LockUpgradeException.class).isThrownBy(() -> this.locks.acquire(exclusive("b")))
				.withMessageContaining("no upgrade from shared to exclusive");
			return null;
		});
		assertThat(keys.waiters(lockKey("a"))).isEmpty();
		assertThat(keys.waiters(lockKey("b"))).isEmpty();
	}

	@Test
	void aSharedLeaseHasNoFencingToken() {
		try (Lease lease = this.locks.acquire(shared("a"))) {
			assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(lease::fencingToken)
				.withMessageContaining("a shared lease has no fencing token");
		}
	}

}
