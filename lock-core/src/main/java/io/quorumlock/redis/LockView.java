package io.quorumlock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import io.quorumlock.Lease;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockMode;
import io.quorumlock.LockRequest;

/**
 * {@link Lock} over one key, owned by the thread that locked it until it unlocks. Holds
 * are counted through the engine's re-entry, so
 * {@code lock(); lock(); unlock(); unlock();} takes Redis once and frees it once.
 */
final class LockView implements Lock {

	/** {@code lock()} waits without a practical bound. */
	static final Duration FOREVER = Duration.ofDays(365 * 100);

	private final QuorumLockEngine engine;

	private final LockRequest request;

	LockView(QuorumLockEngine engine, LockRequest request) {
		this.engine = engine;
		this.request = request;
	}

	/** A Lock view is of one exclusive key. */
	static void checkViewable(LockRequest request) {
		if (request == null) {
			throw new IllegalArgumentException("'request' must not be null");
		}
		if (request.keys().size() != 1 || request.mode() != LockMode.EXCLUSIVE || request.permits() != 1) {
			throw new IllegalArgumentException("a Lock view is of one exclusive key, not of " + request);
		}
	}

	@Override
	public void lock() {
		own(this.engine.acquireBlocking(this.request.waitAtMost(FOREVER), false));
	}

	/**
	 * A lease taken through this view is held by this thread until it unlocks: the lease
	 * never leaves the view, so it cannot be handed off.
	 */
	private static void own(Lease lease) {
		if (lease instanceof RedisLease granted) {
			granted.owner(Thread.currentThread());
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		try {
			own(this.engine.acquireBlocking(this.request.waitAtMost(FOREVER), true));
		}
		catch (LockNotAcquiredException ex) {
			if (Thread.interrupted()) {
				InterruptedException interrupted = new InterruptedException(ex.getMessage());
				interrupted.initCause(ex);
				throw interrupted;
			}
			throw ex;
		}
	}

	@Override
	public boolean tryLock() {
		try {
			own(this.engine.acquireBlocking(this.request.waitAtMost(Duration.ZERO), true));
			return true;
		}
		catch (LockNotAcquiredException ex) {
			return false;
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		Duration wait = Duration.ofNanos(Math.max(0, unit.toNanos(time)));
		try {
			own(this.engine.acquireBlocking(this.request.waitAtMost(wait), true));
			return true;
		}
		catch (LockNotAcquiredException ex) {
			if (Thread.interrupted()) {
				throw new InterruptedException(ex.getMessage());
			}
			return false;
		}
	}

	@Override
	public void unlock() {
		RedisLease lease = this.engine.heldInScope(this.request);
		if (lease == null) {
			throw new IllegalMonitorStateException("key '" + this.request.keys().get(0) + "' is not held by thread "
					+ Thread.currentThread().getName());
		}
		if (lease.holds().get() > 1) {
			lease.holds().decrementAndGet();
		}
		else if (lease.owner() == Thread.currentThread()) {
			lease.release();
		}
		else {
			throw new IllegalMonitorStateException(
					"key '" + this.request.keys().get(0) + "' is held by an enclosing call on thread "
							+ Thread.currentThread().getName() + ", not locked through this view");
		}
	}

	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("conditions are not supported on a distributed lock");
	}

}
