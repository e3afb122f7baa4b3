package io.quorumlock.etcd;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import io.quorumlock.Lease;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;

/**
 * The {@link Lock} view of one key of an {@link EtcdLockRegistry}: owned by the thread
 * that locked it until that thread unlocks as often as it locked.
 */
final class EtcdLockView implements Lock {

	private final EtcdLockRegistry registry;

	private final LockRequest request;

	/** Each thread's holds through this view, innermost first. */
	private final Map<Thread, Deque<Lease>> holds = new ConcurrentHashMap<>();

	EtcdLockView(EtcdLockRegistry registry, LockRequest request) {
		this.registry = registry;
		this.request = request;
	}

	@Override
	public void lock() {
		take(Long.MAX_VALUE, false);
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		if (!take(Long.MAX_VALUE, true)) {
			throw new InterruptedException();
		}
	}

	@Override
	public boolean tryLock() {
		return take(0, false);
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		boolean locked = take(unit.toNanos(time), true);
		if (!locked && Thread.interrupted()) {
			throw new InterruptedException();
		}
		return locked;
	}

	@Override
	public void unlock() {
		Thread me = Thread.currentThread();
		Deque<Lease> mine = this.holds.get(me);
		Lease lease = (mine != null) ? mine.poll() : null;
		if (lease == null) {
			throw new IllegalMonitorStateException(
					"lock key '" + this.request.keys().get(0) + "' is not held by " + me.getName());
		}
		if (mine.isEmpty()) {
			this.holds.remove(me);
		}
		lease.release();
	}

	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("a distributed lock has no conditions");
	}

	/** Lock, re-entering a lease in scope, else waiting up to {@code waitNanos}. */
	private boolean take(long waitNanos, boolean interruptible) {
		EtcdRequest resolved = this.registry.resolve(this.request);
		Lease lease = this.registry.reentry(resolved);
		if (lease == null) {
			try {
				EtcdLease granted = this.registry.acquireBlocking(resolved, waitNanos, interruptible);
				granted.owner(Thread.currentThread());
				lease = granted;
			}
			catch (LockNotAcquiredException ex) {
				return false;
			}
		}
		this.holds.computeIfAbsent(Thread.currentThread(), (thread) -> new ArrayDeque<>()).push(lease);
		return true;
	}

}
