package io.quorumlock.shedlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;

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
 * scheduler logs why. Works with ShedLock 6.x and 7.x, whose {@code LockProvider} API is
 * the same.
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
	 * One ShedLock hold: unlocking releases the lease (keeping it for lockAtLeastFor).
	 */
	private static final class QuorumSimpleLock implements SimpleLock {

		private final Lease lease;

		QuorumSimpleLock(Lease lease) {
			this.lease = lease;
		}

		@Override
		public void unlock() {
			try {
				this.lease.release();
			}
			catch (LeaseLostException ex) {
				// a job that outran lockAtMostFor: the engine has logged and counted the
				// loss; ShedLock's own providers do not fail the job for it either
			}
		}

		@Override
		public String toString() {
			return "QuorumSimpleLock[" + this.lease + "]";
		}

	}

}
