package io.quorumlock.shedlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;

/**
 * A ShedLock {@link LockProvider} backed by a {@link DistributedLockRegistry}: each
 * ShedLock lock name is one quorumlock key under the lock name {@value #DEFAULT_NAME}
 * (Redis key {@code lock:shedlock:{<name>}}), tried once. {@code lockAtMostFor} is the
 * lease, without renewal (a holder that dies lets the lock go after it, as in ShedLock);
 * {@code lockAtLeastFor} is the minimum hold ({@code holdAtLeast}). A lock held elsewhere
 * gives {@link Optional#empty()}, so ShedLock skips the run; a missing quorum throws
 * {@link io.quorumlock.QuorumUnavailableException}, so the run is skipped and the
 * scheduler logs why. A lock can be extended ({@code LockExtender.extendActiveLock}, see
 * {@link SimpleLock#extend(Duration, Duration)}): the lease is set to the new
 * {@code lockAtMostFor} from now on a quorum ({@link Lease#extend(Duration, Duration)}),
 * and the new {@code lockAtLeastFor}, measured from the extension, replaces the old one.
 * Works with ShedLock 6.x and 7.x, whose {@code LockProvider} and {@code SimpleLock} APIs
 * are the same.
 */
public class QuorumLockProvider implements LockProvider {

	/** The lock name under which ShedLock's locks live. */
	public static final String DEFAULT_NAME = "shedlock";

	private final DistributedLockRegistry registry;

	private final String name;

	/**
	 * Create a provider whose locks live under the name {@value #DEFAULT_NAME}.
	 * @param registry the registry to lock on
	 */
	public QuorumLockProvider(DistributedLockRegistry registry) {
		this(registry, DEFAULT_NAME);
	}

	/**
	 * Create a provider whose locks live under the given quorumlock lock name.
	 * @param registry the registry to lock on
	 * @param name the lock name (part of the Redis key, and the key of
	 * {@code quorumlock.instances.<name>})
	 */
	public QuorumLockProvider(DistributedLockRegistry registry, String name) {
		if (registry == null) {
			throw new IllegalArgumentException("'registry' must not be null");
		}
		if (name == null) {
			throw new IllegalArgumentException("'name' must not be null");
		}
		this.registry = registry;
		this.name = name;
	}

	@Override
	public Optional<SimpleLock> lock(LockConfiguration configuration) {
		LockRequest request = LockRequest.of(configuration.getName())
			.name(this.name)
			.label(configuration.getName())
			.lease(configuration.getLockAtMostFor())
			.renew(false)
			.holdAtLeast(configuration.getLockAtLeastFor())
			.waitAtMost(Duration.ZERO);
		try {
			// the asynchronous entry point: a thread that still holds an overrun lock of
			// the same name gets a fresh attempt, not a re-entry
			return Optional.of(new QuorumSimpleLock(this.registry.acquireAsync(request).join()));
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof LockNotAcquiredException) {
				return Optional.empty();
			}
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
	}

	/**
	 * One ShedLock hold: unlocking releases the lease (keeping it for lockAtLeastFor);
	 * extending hands the lease on to a new hold, after which this one is spent.
	 */
	private static final class QuorumSimpleLock implements SimpleLock {

		private final Lease lease;

		/** Whether {@link #extend} was called: a lock is extended once, at most. */
		private final AtomicBoolean extendCalled = new AtomicBoolean();

		/** Set when an extension handed the lease on to another hold. */
		private volatile boolean handedOn;

		QuorumSimpleLock(Lease lease) {
			this.lease = lease;
		}

		@Override
		public void unlock() {
			if (this.handedOn) {
				throw new IllegalStateException(this + " was extended: unlock the lock the extension returned");
			}
			try {
				this.lease.release();
			}
			catch (LeaseLostException ex) {
				// a job that outran lockAtMostFor: the engine has logged and counted the
				// loss; ShedLock's own providers do not fail the job for it either
			}
		}

		/**
		 * Extend the lease to {@code lockAtMostFor} from now, with {@code lockAtLeastFor}
		 * from now as its new minimum hold. As ShedLock asks, this lock is spent once
		 * extended, and the returned one holds the lease; if the lease is no longer held
		 * (it expired, or a quorum did not extend it, and the engine reported it lost)
		 * the result is empty and this lock may still be unlocked, which frees what is
		 * left of it.
		 * @throws IllegalStateException if this lock was extended before
		 * @throws IllegalArgumentException if the durations break a lease's rules (for
		 * example {@code lockAtLeastFor} longer than {@code lockAtMostFor}, or
		 * {@code lockAtMostFor} longer than {@code quorumlock.rejoin-delay})
		 */
		@Override
		public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
			if (!this.extendCalled.compareAndSet(false, true)) {
				throw new IllegalStateException(this + " was extended before: extend the lock the extension returned");
			}
			boolean extended;
			try {
				extended = this.lease.extend(lockAtMostFor, lockAtLeastFor);
			}
			catch (RuntimeException ex) {
				this.extendCalled.set(false); // refused before anything was sent
				throw ex;
			}
			if (!extended) {
				return Optional.empty();
			}
			this.handedOn = true;
			return Optional.of(new QuorumSimpleLock(this.lease));
		}

		@Override
		public String toString() {
			return "QuorumSimpleLock[" + this.lease + "]";
		}

	}

}
