package io.quorumlock.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockOptions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The Spring Integration registry behaves as Spring Integration's own registries where
 * their users rely on it: one lock per key, {@link IllegalStateException} for an unlock
 * by a thread that does not hold the lock, {@link ConcurrentModificationException} for an
 * unlock after the lease expired, {@link ExpirableLockRegistry} and
 * {@link RenewableLockRegistry}; on every backend, a subclass each, which starts the
 * registry and reads a key's time to live on its servers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class QuorumLockRegistryContract {

	private DistributedLockRegistry engine;

	/**
	 * A started, ready registry whose request bound allows locks of
	 * {@link #shortLease()}, with these default options.
	 */
	abstract DistributedLockRegistry start(LockOptions defaults);

	/** Whether the servers keep the lock key {@code key} for more than a second. */
	abstract boolean keptOverASecond(String key);

	private DistributedLockRegistry engine(LockOptions defaults) {
		this.engine = start(defaults);
		return this.engine;
	}

	private QuorumLockRegistry registry() {
		return new QuorumLockRegistry(engine(LockOptions.none()));
	}

	/** The lease of locks taken without renewal: 400 ms unless a backend needs longer. */
	Duration shortLease() {
		return Duration.ofMillis(400);
	}

	/** Locks taken without renewal, for {@link #shortLease()}. */
	private QuorumLockRegistry shortLocks() {
		return new QuorumLockRegistry(engine(LockOptions.none().lease(shortLease()).renew(false)));
	}

	@AfterEach
	void closeEngine() throws Exception {
		if (this.engine != null) {
			((AutoCloseable) this.engine).close();
		}
	}

	private static <T> T onAnotherThread(java.util.concurrent.Callable<T> action) throws Exception {
		return CompletableFuture.supplyAsync(() -> {
			try {
				return action.call();
			}
			catch (Exception ex) {
				throw new java.util.concurrent.CompletionException(ex);
			}
		}).get(10, TimeUnit.SECONDS);
	}

	@Test
	void obtainReturnsOneLockPerKey() {
		QuorumLockRegistry registry = registry();
		Lock a = registry.obtain("a");
		assertThat(registry.obtain("a")).isSameAs(a);
		assertThat(registry.obtain("b")).isNotSameAs(a).isNotEqualTo(a);
		Map<Lock, String> held = new HashMap<>();
		held.put(a, "a");
		assertThat(held).containsKey(registry.obtain("a"));
	}

	@Test
	void unlockByAThreadThatDoesNotHoldTheLockThrowsIllegalStateException() throws Exception {
		QuorumLockRegistry registry = registry();
		Lock lock = registry.obtain("a");
		assertThatIllegalStateException().isThrownBy(lock::unlock);
		lock.lock();
		try {
			Throwable foreign = onAnotherThread(() -> {
				try {
					lock.unlock();
					return null;
				}
				catch (RuntimeException ex) {
					return ex;
				}
			});
			assertThat(foreign).isInstanceOf(IllegalStateException.class);
			assertThat(onAnotherThread(() -> lock.tryLock()).booleanValue()).as("still held").isFalse();
		}
		finally {
			lock.unlock();
		}
		assertThatIllegalStateException().isThrownBy(lock::unlock);
	}

	@Test
	void unlockAfterTheLeaseExpiredThrowsConcurrentModificationExceptionWithTheLoss() throws Exception {
		QuorumLockRegistry registry = shortLocks();
		Lock lock = registry.obtain("a");
		lock.lock();
		// another thread takes it once the lease has run out, without waiting for the
		// unlock
		assertThat(onAnotherThread(() -> {
			boolean locked = lock.tryLock(5, TimeUnit.SECONDS);
			if (locked) {
				lock.unlock();
			}
			return locked;
		})).isTrue();
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock)
			.withCauseInstanceOf(LeaseLostException.class);
		// released all the same
		assertThatIllegalStateException().isThrownBy(lock::unlock);
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
	}

	@Test
	void expireUnusedOlderThanDropsOnlyLocksNotHeld() throws Exception {
		QuorumLockRegistry registry = registry();
		Lock held = registry.obtain("held");
		Lock unused = registry.obtain("unused");
		held.lock();
		try {
			await().atMost(Duration.ofSeconds(5)).until(() -> {
				registry.expireUnusedOlderThan(0);
				return registry.obtain("unused") != unused;
			});
			registry.expireUnusedOlderThan(0);
			assertThat(registry.obtain("held")).isSameAs(held);
			assertThat(onAnotherThread(() -> registry.obtain("held").tryLock())).isFalse();
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void renewLockNeedsTheLockHeldByTheCurrentThread() throws Exception {
		QuorumLockRegistry registry = registry();
		assertThatIllegalStateException().isThrownBy(() -> registry.renewLock("a"));
		Lock lock = registry.obtain("a");
		lock.lock();
		try {
			registry.renewLock("a");
			Throwable foreign = onAnotherThread(() -> {
				try {
					registry.renewLock("a");
					return null;
				}
				catch (RuntimeException ex) {
					return ex;
				}
			});
			assertThat(foreign).isInstanceOf(IllegalStateException.class);
		}
		finally {
			lock.unlock();
		}
		assertThatIllegalStateException().isThrownBy(() -> registry.renewLock("a"));
	}

	@Test
	void renewLockWithATtlExtendsALockTakenWithoutRenewal() throws Exception {
		QuorumLockRegistry registry = shortLocks();
		Lock lock = registry.obtain("a");
		lock.lock();
		try {
			registry.renewLock("a", Duration.ofSeconds(10));
			String key = "lock:{integration:a}";
			await().atMost(Duration.ofSeconds(5)).until(() -> keptOverASecond(key));
			long pastTheShortLease = shortLease().toMillis() + 600;
			assertThat(onAnotherThread(() -> lock.tryLock(pastTheShortLease, TimeUnit.MILLISECONDS)))
				.as("still held past the short lease")
				.isFalse();
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void renewLockOfALostLeaseThrowsIllegalStateExceptionWithTheLoss() throws Exception {
		QuorumLockRegistry registry = shortLocks();
		Lock lock = registry.obtain("a");
		lock.lock();
		assertThat(onAnotherThread(() -> {
			boolean locked = lock.tryLock(5, TimeUnit.SECONDS);
			if (locked) {
				lock.unlock();
			}
			return locked;
		})).isTrue();
		assertThatIllegalStateException().isThrownBy(() -> registry.renewLock("a", Duration.ofSeconds(10)))
			.withCauseInstanceOf(LeaseLostException.class);
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
	}

}
