package io.quorumlock.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockRequest;

/**
 * A Spring Integration {@link LockRegistry} backed by a {@link DistributedLockRegistry}:
 * {@code obtain(key)} is {@link DistributedLockRegistry#asLock(LockRequest)} of
 * {@code <registryKey>:<key>}, so the Redis key is {@code lock:{<registryKey>:<key>}},
 * labelled with the registry key ({@value #DEFAULT_REGISTRY_KEY} unless given), which is
 * the {@code lock} in messages, metrics and {@code /actuator/locks}; give each registry
 * its own registry key to tell their locks apart there. The locks are re-entrant per
 * thread and renewed by the engine's watchdog while held (with the configured
 * {@code quorumlock.lease} and {@code quorumlock.renew}), so
 * {@code LockRegistryLeaderInitiator} keeps leadership while its lease is renewed; once
 * the lease is lost its next heartbeat's {@code tryLock} fails with
 * {@link io.quorumlock.LeaseLostException} and leadership is revoked. Without a quorum
 * {@code tryLock} throws {@link io.quorumlock.QuorumUnavailableException}, so nobody
 * leads.
 * <p>
 * As Spring Integration's own registries do, {@code obtain} returns one {@link Lock} per
 * key (until {@link #expireUnusedOlderThan(long)} drops it while unlocked), an
 * {@code unlock()} by a thread that does not hold the lock throws
 * {@link IllegalStateException}, and an {@code unlock()} after the lease was lost throws
 * {@link ConcurrentModificationException} with the {@link LeaseLostException} as its
 * cause (the keys are released all the same). Implemented raw, so that the same class
 * serves Spring Integration 6.5 and 7.x (where the interfaces are generic).
 */
@SuppressWarnings("rawtypes")
public class QuorumLockRegistry implements ExpirableLockRegistry, RenewableLockRegistry {

	/** The default registry key, the first part of every lock key. */
	public static final String DEFAULT_REGISTRY_KEY = "integration";

	private final DistributedLockRegistry registry;

	private final String registryKey;

	private final Map<String, QuorumLock> locks = new ConcurrentHashMap<>();

	/**
	 * Create a registry whose keys start with {@value #DEFAULT_REGISTRY_KEY}.
	 * @param registry the registry to lock on
	 */
	public QuorumLockRegistry(DistributedLockRegistry registry) {
		this(registry, DEFAULT_REGISTRY_KEY);
	}

	/**
	 * Create a registry whose keys start with the given registry key.
	 * @param registry the registry to lock on
	 * @param registryKey the first part of every lock key, not empty
	 */
	public QuorumLockRegistry(DistributedLockRegistry registry, String registryKey) {
		if (registry == null) {
			throw new IllegalArgumentException("'registry' must not be null");
		}
		if (registryKey == null || registryKey.isEmpty()) {
			throw new IllegalArgumentException("'registryKey' must not be empty");
		}
		this.registry = registry;
		this.registryKey = registryKey;
	}

	/**
	 * The lock for a key: the same {@link Lock} for the same key, until
	 * {@link #expireUnusedOlderThan(long)} drops it.
	 * @param lockKey a {@code String}
	 * @return a re-entrant {@link Lock} over the key
	 * @throws IllegalArgumentException if the key is not a non-empty string
	 */
	@Override
	public Lock obtain(Object lockKey) {
		String key = checkKey(lockKey);
		QuorumLock lock = this.locks.computeIfAbsent(key, this::newLock);
		lock.lastUsed = System.nanoTime();
		return lock;
	}

	/**
	 * Forget the locks obtained more than {@code age} milliseconds ago that no thread of
	 * this process holds now; a later {@link #obtain(Object)} of their keys returns a new
	 * {@link Lock} over the same distributed lock. Nothing is sent to the masters: an
	 * unheld lock leaves no state there.
	 * @param age milliseconds since the lock was last obtained or locked
	 */
	@Override
	public void expireUnusedOlderThan(long age) {
		long now = System.nanoTime();
		long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
		this.locks.values().removeIf((lock) -> now - lock.lastUsed > ageNanos && !lock.isHeld());
	}

	/**
	 * Check that the current thread still holds the lock of {@code lockKey}. The engine's
	 * watchdog renews a held lease every lease/3 (with {@code quorumlock.renew}, the
	 * default), so there is nothing else to do; a lock taken without renewal is extended
	 * with {@link #renewLock(Object, Duration)}.
	 * @param lockKey the key the lock was obtained for
	 * @throws IllegalStateException if the current thread does not hold the lock, or its
	 * lease was lost (the {@link LeaseLostException} is the cause)
	 */
	@Override
	public void renewLock(Object lockKey) {
		renew(lockKey, null);
	}

	/**
	 * Set the lock of {@code lockKey}, held by the current thread and taken without
	 * renewal ({@code quorumlock.renew=false}), to expire {@code ttl} from now
	 * ({@link Lease#extend(Duration)}).
	 * @param lockKey the key the lock was obtained for
	 * @param ttl how long from now the lock lives; a lease's rules apply
	 * @throws IllegalStateException if the current thread does not hold the lock, if its
	 * lease was lost or could not be extended (a {@link LeaseLostException} is then the
	 * cause), or if the lock renews itself (its watchdog extends it already)
	 * @throws IllegalArgumentException if {@code ttl} breaks a lease's rules
	 */
	public void renewLock(Object lockKey, Duration ttl) {
		if (ttl == null) {
			throw new IllegalArgumentException("'ttl' must not be null");
		}
		renew(lockKey, ttl);
	}

	private void renew(Object lockKey, Duration ttl) {
		String key = checkKey(lockKey);
		QuorumLock lock = this.locks.get(key);
		if (lock == null || !lock.isHeldByCurrentThread()) {
			throw new IllegalStateException("lock key '" + key + "' of registry '" + this.registryKey
					+ "' is not held by thread " + Thread.currentThread().getName());
		}
		// a re-entry into the lease this thread holds through the lock: never a round
		Lease hold;
		try {
			hold = this.registry.acquire(lock.request.waitAtMost(Duration.ZERO));
		}
		catch (LeaseLostException ex) {
			throw new IllegalStateException("could not renew lock key '" + key + "': " + ex.getMessage(), ex);
		}
		try {
			if (ttl == null) {
				if (!hold.isValid()) {
					throw new IllegalStateException("could not renew lock key '" + key + "': its lease is lost");
				}
			}
			else if (!hold.extend(ttl)) {
				throw new IllegalStateException("could not renew lock key '" + key + "': its lease is lost");
			}
		}
		finally {
			hold.release();
		}
	}

	private static String checkKey(Object lockKey) {
		if (!(lockKey instanceof String key) || key.isEmpty()) {
			throw new IllegalArgumentException("lock key must be a non-empty String, was " + lockKey);
		}
		return key;
	}

	private QuorumLock newLock(String key) {
		LockRequest request = LockRequest.of(this.registryKey + ":" + key).label(this.registryKey);
		Lock view;
		try {
			view = this.registry.asLock(request);
		}
		catch (UnsupportedOperationException ex) {
			// a registry without labelled views: the same key, unlabelled
			request = LockRequest.of(request.keys().get(0));
			view = this.registry.asLock(request.keys().get(0));
		}
		return new QuorumLock(key, request, view);
	}

	@Override
	public String toString() {
		return "QuorumLockRegistry[" + this.registryKey + "]";
	}

	/**
	 * The one {@link Lock} of a key: the engine's view, with the exceptions Spring
	 * Integration's locks throw, and which thread holds it, for
	 * {@link #expireUnusedOlderThan(long)} and {@link #renewLock(Object)}.
	 */
	private static final class QuorumLock implements Lock {

		private final String key;

		private final LockRequest request;

		private final Lock view;

		/**
		 * The threads holding it through this lock, and how many times each: one, but for
		 * a lease lost and not unlocked yet beside the next holder's.
		 */
		private final Map<Thread, Integer> holders = new ConcurrentHashMap<>(2);

		private volatile long lastUsed = System.nanoTime();

		QuorumLock(String key, LockRequest request, Lock view) {
			this.key = key;
			this.request = request;
			this.view = view;
		}

		@Override
		public void lock() {
			this.view.lock();
			held();
		}

		@Override
		public void lockInterruptibly() throws InterruptedException {
			this.view.lockInterruptibly();
			held();
		}

		@Override
		public boolean tryLock() {
			return this.view.tryLock() && held();
		}

		@Override
		public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
			return this.view.tryLock(time, unit) && held();
		}

		private boolean held() {
			this.lastUsed = System.nanoTime();
			this.holders.merge(Thread.currentThread(), 1, Integer::sum);
			return true;
		}

		boolean isHeldByCurrentThread() {
			return this.holders.containsKey(Thread.currentThread());
		}

		boolean isHeld() {
			return !this.holders.isEmpty();
		}

		/**
		 * Unlock once.
		 * @throws IllegalStateException if the current thread does not hold the lock
		 * @throws ConcurrentModificationException if the lease was lost before this
		 * unlock (its {@link LeaseLostException} is the cause); the lock is released all
		 * the same
		 */
		@Override
		public void unlock() {
			try {
				this.view.unlock();
			}
			catch (IllegalMonitorStateException ex) {
				IllegalStateException notOwner = new IllegalStateException(ex.getMessage());
				notOwner.initCause(ex);
				throw notOwner;
			}
			catch (LeaseLostException ex) {
				unheld();
				ConcurrentModificationException lost = new ConcurrentModificationException(
						"the lock of key '" + this.key + "' expired or was lost before its unlock; "
								+ "the data it protects may have been changed by another holder: " + ex.getMessage());
				lost.initCause(ex);
				throw lost;
			}
			unheld();
		}

		private void unheld() {
			this.holders.computeIfPresent(Thread.currentThread(), (thread, holds) -> (holds > 1) ? holds - 1 : null);
		}

		@Override
		public Condition newCondition() {
			return this.view.newCondition();
		}

		@Override
		public String toString() {
			return "QuorumLock[" + this.request.keys().get(0) + (isHeld() ? ", held" : "") + "]";
		}

	}

}
