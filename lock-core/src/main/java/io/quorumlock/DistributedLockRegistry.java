package io.quorumlock;

import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * Programmatic entry point to distributed locks. The {@code @DistributedLock} aspect uses
 * nothing else.
 * <p>
 * Re-entry by the same thread on the same key (through {@link #acquire},
 * {@link #tryAcquire}, {@link #execute} or {@link #asLock}) does not touch Redis: holds
 * are counted locally, and only the outermost release frees the lock.
 */
public interface DistributedLockRegistry {

	/**
	 * Acquire, waiting up to the request's {@code waitAtMost}.
	 * @param request what to lock
	 * @return the lease, to be released by the caller
	 * @throws LockNotAcquiredException if the lock stayed held elsewhere for the whole
	 * wait
	 * @throws QuorumUnavailableException if fewer than a quorum of nodes answered or
	 * voted
	 * @throws LockException if the calling thread is interrupted while waiting (the
	 * interrupt flag is restored)
	 */
	Lease acquire(LockRequest request);

	/**
	 * Acquire like {@link #acquire} but answer empty when the lock is held elsewhere.
	 * @param request what to lock
	 * @return the lease, or empty if the lock was not acquired within the wait
	 * @throws QuorumUnavailableException if fewer than a quorum of nodes answered or
	 * voted
	 */
	Optional<Lease> tryAcquire(LockRequest request);

	/**
	 * Acquire without blocking the calling thread. The future completes with the lease,
	 * or exceptionally with a {@link LockException}. Cancelling the future gives up
	 * waiting; a lease granted after the cancellation is released at once. Leases
	 * acquired this way are not re-entrant: they belong to no thread.
	 * @param request what to lock
	 * @return a future of the lease
	 */
	CompletableFuture<Lease> acquireAsync(LockRequest request);

	/**
	 * Acquire, run the action, release: the lease is released whatever the action returns
	 * or throws. A checked exception from the action is rethrown wrapped in
	 * {@link java.lang.reflect.UndeclaredThrowableException}.
	 * @param <T> the action's result type
	 * @param request what to lock
	 * @param action the work to run under the lock
	 * @return the action's result
	 * @throws LockNotAcquiredException if the lock was not acquired (the action did not
	 * run)
	 * @throws QuorumUnavailableException if no quorum answered (the action did not run)
	 */
	<T> T execute(LockRequest request, Callable<T> action);

	/**
	 * A {@link Lock} view of one key with the registry's default options. {@code lock()}
	 * waits without bound; {@code unlock()} by a thread that does not hold the key throws
	 * {@link IllegalMonitorStateException}; conditions are not supported.
	 * @param key the key
	 * @return a lock view
	 */
	Lock asLock(String key);

}
