package io.quorumlock.testing;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.quorumlock.LockNotAcquiredException;

/**
 * The locks shared by an {@link InMemoryLockRegistry} and its peers: which lease holds
 * each key, and the fencing counter. Guarded by one lock; waiters wait on one condition,
 * signalled at every release, and wake by themselves when a blocking lease expires.
 */
final class InMemoryLocks {

	private static final long FREE = Long.MIN_VALUE;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition released = this.lock.newCondition();

	/**
	 * Key → the last lease granted on it; free when that lease is released or expired.
	 */
	private final Map<String, InMemoryLease> holders = new HashMap<>();

	/** The last fencing token issued; tokens grow with every grant. */
	private long lastToken;

	InMemoryLease grant(InMemoryLockRegistry registry, InMemoryLockRequest request, long waitNanos,
			boolean interruptible) {
		long start = System.nanoTime();
		boolean interrupted = false;
		this.lock.lock();
		try {
			while (true) {
				long now = System.nanoTime();
				long blockedUntil = blockedUntil(request, now);
				if (blockedUntil == FREE) {
					InMemoryLease lease = new InMemoryLease(registry, this, request, ++this.lastToken, now);
					for (String key : request.lockKeys()) {
						this.holders.put(key, lease);
					}
					return lease;
				}
				long waited = now - start;
				if (waited >= waitNanos) {
					throw new LockNotAcquiredException(request.describe() + ": not acquired, held elsewhere, "
							+ TimeUnit.NANOSECONDS.toMillis(waited) + " ms elapsed, waited at most "
							+ request.waitAtMost().toMillis() + " ms");
				}
				long pause = (blockedUntil == Long.MAX_VALUE) ? waitNanos - waited
						: Math.min(waitNanos - waited, blockedUntil - now);
				try {
					this.released.awaitNanos(Math.max(pause, 1));
				}
				catch (InterruptedException ex) {
					if (interruptible) {
						Thread.currentThread().interrupt();
						throw new LockNotAcquiredException(
								request.describe() + ": not acquired, the waiting thread was interrupted");
					}
					interrupted = true;
				}
			}
		}
		finally {
			this.lock.unlock();
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Whether a lease holds {@code key} now, or keeps it for its minimum hold. */
	boolean isHeld(String key) {
		this.lock.lock();
		try {
			InMemoryLease holder = this.holders.get(key);
			return holder != null && holder.blocksAt(System.nanoTime());
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * {@link #FREE} when every key of the request is free; else when the latest-expiring
	 * lease in the way runs out ({@code Long.MAX_VALUE}: not before it is released).
	 */
	private long blockedUntil(InMemoryLockRequest request, long now) {
		long until = FREE;
		for (String key : request.lockKeys()) {
			InMemoryLease holder = this.holders.get(key);
			if (holder != null && holder.blocksAt(now)) {
				long validUntil = holder.blocksUntil(now);
				if (until == FREE || validUntil == Long.MAX_VALUE
						|| (until != Long.MAX_VALUE && validUntil - until > 0)) {
					until = validUntil;
				}
			}
		}
		return until;
	}

	/**
	 * Free the keys the lease still holds (unless its minimum hold keeps them) and wake
	 * the waiters.
	 */
	void release(InMemoryLease lease) {
		this.lock.lock();
		try {
			if (!lease.kept()) {
				this.holders.values().removeIf((holder) -> holder == lease);
			}
			this.released.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Extend a lease that does not renew to {@code leaseNanos} from now, if it still
	 * holds its keys; waiters recompute when it blocks them until.
	 */
	boolean extend(InMemoryLease lease, long leaseNanos) {
		this.lock.lock();
		try {
			long now = System.nanoTime();
			if (!lease.holdsAt(now)) {
				return false;
			}
			lease.expireAt(now + leaseNanos);
			this.released.signalAll();
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

}
