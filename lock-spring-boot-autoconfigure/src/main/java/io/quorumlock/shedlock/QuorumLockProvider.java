package io.quorumlock.shedlock;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;

/**
 * A ShedLock {@link LockProvider} backed by a {@link DistributedLockRegistry}: each
 * ShedLock lock name is one quorumlock key under the lock name {@value #DEFAULT_NAME}
 * (Redis key {@code lock:shedlock:{<job>}}, options from
 * {@code quorumlock.instances.shedlock}), labelled with the job's name, which is the
 * {@code lock} in messages, metrics and {@code /actuator/locks}. It is tried once; a
 * split vote among instances firing together is retried by the registry at once.
 * <p>
 * {@code lockAtMostFor} bounds a short renewed lease, as ShedLock's own
 * {@code KeepAliveLockProvider} does: the lock is taken with the configured lease of its
 * lock name (30 s by default), renewed every lease/3 while the job runs, and renewal
 * stops at {@code lockAtMostFor} ({@code holdAtMost}), so a job that overruns loses the
 * lock at most one lease after {@code lockAtMostFor}, and the lock of an instance that
 * dies frees after one lease instead of {@code lockAtMostFor}. A long
 * {@code lockAtMostFor} (ten minutes, a day) needs no longer restart guard. A
 * {@code lockAtMostFor} not longer than the lease is the lease itself, without renewal.
 * {@code lockAtLeastFor} is the minimum hold ({@code holdAtLeast}).
 * <p>
 * A lock held elsewhere gives {@link Optional#empty()}, so ShedLock skips the run
 * quietly: a tick another instance runs is no error. A missing quorum
 * ({@link QuorumUnavailableException}) skips the run the same way, never as an error of
 * the scheduled task: it is logged at WARN once per incident and job, with the registry's
 * reason (the figures and each master's failure), at DEBUG for the further ticks of the
 * incident, and at INFO when a lock of the job is decided again (granted or held
 * elsewhere); the registry's listeners count every such tick (the
 * {@code distributed.lock.wait} outcome {@code quorum_unavailable}), as they do for the
 * {@code @DistributedLock(onFailure = SKIP)} recipe. A lock can be extended (an
 * {@link ExtensibleLockProvider}: {@code LockExtender.extendActiveLock}, ShedLock's
 * {@code KeepAliveLockProvider}, see {@link SimpleLock#extend(Duration, Duration)}):
 * {@code lockAtMostFor} then counts from the extension
 * ({@link Lease#extend(Duration, Duration)} moves the end of renewal, or the lease of a
 * lock taken without renewal), and the new {@code lockAtLeastFor}, measured from the
 * extension, replaces the old one. Each {@link SimpleLock} is used once, as ShedLock's
 * own are: a second {@code unlock()}, or an {@code unlock()} or {@code extend} after an
 * extension, throws {@link IllegalStateException}. Works with ShedLock 6.x and 7.x, whose
 * {@code LockProvider} and {@code SimpleLock} APIs are the same.
 */
public class QuorumLockProvider implements ExtensibleLockProvider {

	/** The lock name under which ShedLock's locks live. */
	public static final String DEFAULT_NAME = "shedlock";

	/** The lease used when none is given: quorumlock's default lease. */
	public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

	private static final Log logger = LogFactory.getLog(QuorumLockProvider.class);

	private final DistributedLockRegistry registry;

	private final String name;

	private final Duration lease;

	/** Jobs whose last tick was skipped for lack of a quorum: an incident under way. */
	private final Set<String> withoutQuorum = ConcurrentHashMap.newKeySet();

	/**
	 * Create a provider whose locks live under the name {@value #DEFAULT_NAME}, with a
	 * lease of 30 s.
	 * @param registry the registry to lock on
	 */
	public QuorumLockProvider(DistributedLockRegistry registry) {
		this(registry, DEFAULT_NAME);
	}

	/**
	 * Create a provider whose locks live under the given quorumlock lock name, with a
	 * lease of 30 s.
	 * @param registry the registry to lock on
	 * @param name the lock name (part of the Redis key, and the key of
	 * {@code quorumlock.instances.<name>})
	 */
	public QuorumLockProvider(DistributedLockRegistry registry, String name) {
		this(registry, name, DEFAULT_LEASE);
	}

	/**
	 * Create a provider whose locks live under the given quorumlock lock name, renewing
	 * the given lease up to each lock's {@code lockAtMostFor}.
	 * @param registry the registry to lock on
	 * @param name the lock name (part of the Redis key, and the key of
	 * {@code quorumlock.instances.<name>})
	 * @param lease the lease of every lock: the one configured for {@code name}
	 * ({@code quorumlock.instances.<name>.lease}, else {@code quorumlock.lease})
	 */
	public QuorumLockProvider(DistributedLockRegistry registry, String name, Duration lease) {
		if (registry == null) {
			throw new IllegalArgumentException("'registry' must not be null");
		}
		if (name == null) {
			throw new IllegalArgumentException("'name' must not be null");
		}
		if (lease == null || lease.isNegative() || lease.isZero()) {
			throw new IllegalArgumentException("'lease' must be positive, was " + lease);
		}
		this.registry = registry;
		this.name = name;
		this.lease = lease;
	}

	/**
	 * Lock name under which the locks live.
	 * @return the lock name
	 */
	public String getName() {
		return this.name;
	}

	/**
	 * Lease renewed up to {@code lockAtMostFor}; a {@code lockAtMostFor} not longer than
	 * it is the lease itself, without renewal.
	 * @return the lease
	 */
	public Duration getLease() {
		return this.lease;
	}

	@Override
	public Optional<SimpleLock> lock(LockConfiguration configuration) {
		Duration atMost = configuration.getLockAtMostFor();
		LockRequest request = LockRequest.of(configuration.getName())
			.name(this.name)
			.label(configuration.getName())
			.holdAtLeast(configuration.getLockAtLeastFor())
			.waitAtMost(Duration.ZERO)
			// a tick another instance runs is skipped here, not failed
			.skipping(true);
		request = (atMost.compareTo(this.lease) > 0) ? request.lease(this.lease).renew(true).holdAtMost(atMost)
				: request.lease(atMost).renew(false);
		String job = configuration.getName();
		try {
			// the asynchronous entry point: a thread that still holds an overrun lock of
			// the same name gets a fresh attempt, not a re-entry
			Lease lease = this.registry.acquireAsync(request).join();
			decided(job);
			return Optional.of(new QuorumSimpleLock(lease, job));
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof LockNotAcquiredException) {
				decided(job);
				return Optional.empty();
			}
			if (ex.getCause() instanceof QuorumUnavailableException unavailable) {
				withoutQuorum(job, unavailable);
				return Optional.empty();
			}
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
	}

	/** A tick skipped for lack of a quorum: WARN at the first of an incident. */
	private void withoutQuorum(String job, QuorumUnavailableException unavailable) {
		if (this.withoutQuorum.add(job)) {
			logger.warn("quorumlock: ShedLock job '" + job + "' skipped its tick without a quorum: "
					+ unavailable.getMessage() + "; further ticks skipped for the same reason are logged at DEBUG "
					+ "until a lock of the job is decided again");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("quorumlock: ShedLock job '" + job + "' skipped its tick without a quorum: "
					+ unavailable.getMessage());
		}
	}

	/** A lock of the job was decided (granted or held elsewhere): an incident is over. */
	private void decided(String job) {
		if (!this.withoutQuorum.isEmpty() && this.withoutQuorum.remove(job)) {
			logger.info("quorumlock: ShedLock job '" + job + "' has a quorum again: its ticks run or are skipped "
					+ "for another instance as usual");
		}
	}

	/**
	 * One ShedLock hold, used once as ShedLock's own locks are: the first
	 * {@link #unlock()} or {@link #extend} spends it, and any call after that throws
	 * {@link IllegalStateException}. Unlocking releases the lease (keeping it for
	 * lockAtLeastFor); an extension hands the lease on to the lock it returns, or, if the
	 * lease is no longer held, releases what is left of it and returns empty.
	 */
	private static final class QuorumSimpleLock implements SimpleLock {

		private final Lease lease;

		private final String name;

		/** Whether {@link #unlock} or {@link #extend} was called. */
		private final AtomicBoolean spent = new AtomicBoolean();

		QuorumSimpleLock(Lease lease, String name) {
			this.lease = lease;
			this.name = name;
		}

		/**
		 * Release the lease; a loss the engine reported (a job that outran lockAtMostFor)
		 * does not fail the job.
		 * @throws IllegalStateException if this lock was unlocked or extended before
		 */
		@Override
		public void unlock() {
			spend("unlocked");
			release(this.lease);
		}

		/**
		 * Extend the lock to {@code lockAtMostFor} from now (the end of renewal, or the
		 * lease of a lock taken without renewal), with {@code lockAtLeastFor} from now as
		 * its new minimum hold. As ShedLock asks, this lock is spent, and the returned
		 * one holds the lease; if the lease is no longer held (it expired, or a quorum
		 * did not extend it, and the engine reported it lost) the result is empty and
		 * what is left of the lease is released.
		 * @throws IllegalStateException if this lock was unlocked or extended before
		 * @throws IllegalArgumentException if the durations break a lease's rules (for
		 * example {@code lockAtLeastFor} longer than {@code lockAtMostFor}, a
		 * {@code lockAtMostFor} shorter than the lease of a renewed lock, or, for a lock
		 * taken without renewal, longer than {@code quorumlock.rejoin-delay}); nothing
		 * was sent, and this lock is not spent
		 */
		@Override
		public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
			spend("extended");
			boolean extended;
			try {
				extended = this.lease.extend(lockAtMostFor, lockAtLeastFor);
			}
			catch (IllegalArgumentException ex) {
				this.spent.set(false); // refused before anything was sent
				throw ex;
			}
			if (!extended) {
				release(this.lease);
				return Optional.empty();
			}
			return Optional.of(new QuorumSimpleLock(this.lease, this.name));
		}

		private void spend(String how) {
			if (!this.spent.compareAndSet(false, true)) {
				throw new IllegalStateException(
						"ShedLock lock '" + this.name + "' was already unlocked or extended; it cannot be " + how
								+ " again (after an extension, " + "use the lock the extension returned)");
			}
		}

		private static void release(Lease lease) {
			try {
				lease.release();
			}
			catch (LeaseLostException ex) {
				// logged and counted by the engine; ShedLock's own providers do not fail
				// the job for it either
			}
		}

		@Override
		public String toString() {
			return "QuorumSimpleLock[" + this.lease + "]";
		}

	}

}
