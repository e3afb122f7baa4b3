package io.quorumlock;

import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * Programmatic entry point to distributed locks. The {@code @DistributedLock} aspect uses
 * nothing else.
 * <p>
 * <b>Re-entry</b> is scoped to a call, never to a thread that once acquired. An
 * acquisition of keys (through {@link #acquire}, {@link #tryAcquire},
 * {@link #acquireAsync}, {@link #execute} or {@link #asLock}) re-enters a lease, without
 * touching Redis, only when the calling thread runs within that lease's scope and the
 * lease is not yet released:
 * <ul>
 * <li>inside a {@code @DistributedLock} method on those keys (the aspect binds its lease
 * to {@link CurrentLease} for the call, on whichever thread runs the method's body,
 * including the body of an asynchronous method);</li>
 * <li>inside the action of {@link #execute} on those keys (bound the same way);</li>
 * <li>while this thread holds the key through the {@link #asLock Lock view} (a
 * {@code Lock} is owned by the thread that locked it until it unlocks).</li>
 * </ul>
 * A lease returned by {@link #acquire}, {@link #tryAcquire} or {@link #acquireAsync}
 * belongs to no thread: it may be handed on and released from any thread, so a second
 * acquisition of its keys is another caller, even on the same thread: it waits or fails
 * like any other (use {@link #execute} for nested locking). A re-entry's own release only
 * gives back its hold; the outermost release frees the lock. Re-entry needs the whole set
 * of keys in scope: holding only some of them is refused with an
 * {@link IllegalStateException}.
 * <p>
 * <b>Threads.</b> Futures this registry hands out never run the caller's continuations on
 * a Redis I/O thread; a blocking call ({@link #acquire}, {@link #tryAcquire},
 * {@link #execute}, {@link Lease#fencingToken()} not yet computed) made on such a thread
 * fails at once with an {@link IllegalStateException} naming the thread and the
 * asynchronous alternative, since the reply it would wait for is read by the thread it
 * would block.
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
	 * acquired this way belong to no thread; called within the scope of a lease of the
	 * same keys (see re-entry above) it completes at once with a re-entry. The future
	 * completes on the caller's executor chain, never on a Redis I/O thread.
	 * @param request what to lock
	 * @return a future of the lease
	 */
	CompletableFuture<Lease> acquireAsync(LockRequest request);

	/**
	 * Acquire, run the action, release: the lease is released whatever the action returns
	 * or throws. While the action runs, the lease is {@link CurrentLease#get() current}
	 * on this thread, and acquisitions of the same keys within it re-enter it. A checked
	 * exception from the action is rethrown wrapped in
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

	/**
	 * A {@link Lock} view of the one key of {@code request}, with its name (the Redis key
	 * and the {@code quorumlock.instances.<name>} options), its label (the {@code lock}
	 * in messages, metrics and the actuator endpoint) and its options; otherwise as
	 * {@link #asLock(String)}. The default refuses: a registry that offers it says so.
	 * @param request an exclusive request for one key
	 * @return a lock view
	 * @throws IllegalArgumentException if the request is not exclusive or has several
	 * keys or permits
	 * @throws UnsupportedOperationException if this registry has no such view
	 */
	default Lock asLock(LockRequest request) {
		throw new UnsupportedOperationException(getClass().getName() + " has no Lock view of a request");
	}

	/**
	 * Whether the key of {@code request} is held now by anyone, on any instance: by an
	 * exclusive holder or by shared holders. A read-only query: it acquires nothing and
	 * waits for no holder.
	 * <p>
	 * The answer may be stale as soon as it is returned: the key may be taken or let go
	 * the next moment. Use it for monitoring, diagnostics and tests, never in place of an
	 * acquisition: {@code if (!isLocked(r)) acquire(r)} must still handle contention.
	 * <p>
	 * <b>Only an answer decides.</b> On a quorum of nodes, the answer is {@code true}
	 * when a quorum of nodes answered that the key is taken, and {@code false} when so
	 * many answered that it is free that no holder can have a quorum. A node that does
	 * not answer in time, is down or is held back by the restart guard is unknown, never
	 * "free": when the answers decide neither way, this throws
	 * {@link QuorumUnavailableException} with the figures rather than guess.
	 * @param request one key, in either mode, without permits; its lease and wait options
	 * are not used
	 * @return whether the key is held now
	 * @throws QuorumUnavailableException if the nodes that answered decide neither way
	 * @throws IllegalArgumentException if the request has several keys or permits
	 * @throws UnsupportedOperationException if this registry cannot answer
	 */
	default boolean isLocked(LockRequest request) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot tell whether a key is locked");
	}

	/**
	 * {@link #isLocked(LockRequest)} without blocking the calling thread: the future
	 * completes with the answer, or exceptionally with what {@code isLocked} would throw.
	 * It completes on the caller's executor chain, never on a Redis I/O thread.
	 * @param request one key, in either mode, without permits
	 * @return a future of the answer
	 */
	default CompletableFuture<Boolean> isLockedAsync(LockRequest request) {
		try {
			return CompletableFuture.completedFuture(isLocked(request));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Whether the calling thread holds the key of {@code request} through this registry:
	 * it runs within the scope of a lease of that key (inside a {@code @DistributedLock}
	 * method or an {@link #execute} action on it, or holding it through a {@link #asLock
	 * Lock view}; the scopes in which an acquisition re-enters, see above), and the lease
	 * is neither released nor past its validity. A lease returned by {@link #acquire}
	 * belongs to no thread, so it does not count here; see {@link #isHeldByThisInstance}.
	 * Asks no node: the answer is this registry's own bookkeeping, and may be stale at
	 * once (the lease may be lost the next moment).
	 * @param request one key, in either mode, without permits
	 * @return whether this thread holds the key
	 * @throws IllegalArgumentException if the request has several keys or permits
	 * @throws UnsupportedOperationException if this registry cannot answer
	 */
	default boolean isHeldByCurrentThread(LockRequest request) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot tell who holds a key");
	}

	/**
	 * Whether a lease of this registry holds the key of {@code request}, whichever thread
	 * acquired it: a lease neither released nor past its validity, in either mode, alone
	 * on the key or with other keys. Asks no node: the answer is this registry's own
	 * bookkeeping, and may be stale at once (the lease may be lost the next moment).
	 * Other instances of the service, and other registries in this JVM, are other
	 * holders.
	 * @param request one key, in either mode, without permits
	 * @return whether this registry holds the key
	 * @throws IllegalArgumentException if the request has several keys or permits
	 * @throws UnsupportedOperationException if this registry cannot answer
	 */
	default boolean isHeldByThisInstance(LockRequest request) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot tell who holds a key");
	}

}
