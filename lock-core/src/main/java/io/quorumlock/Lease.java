package io.quorumlock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A held lock: obtained once, released once. Ownership is a random token, not a thread,
 * so a lease may be handed on and released from any thread; it ties no thread to itself
 * (re-entry is scoped to a call, see {@link DistributedLockRegistry}). {@link #release()}
 * is idempotent and {@link #close()} is the same as {@link #release()}, so a lease works
 * in try-with-resources.
 */
public interface Lease extends AutoCloseable {

	/**
	 * Keys this lease holds, as requested (not the Redis key names), sorted.
	 * @return the keys
	 */
	List<String> keys();

	/**
	 * A number that grows with each holder of these keys, for a store to refuse writes
	 * from a holder whose lease silently expired. Computed on the first call.
	 * @return the fencing token
	 * @throws LeaseLostException if the lease no longer holds a quorum
	 * @throws UnsupportedOperationException if this registry does not issue tokens, or
	 * for a {@link LockMode#SHARED shared} lease or a lease of one of several
	 * {@link LockRequest#permits(int) permits}: tokens order the holders of one key, one
	 * after another, which shared holders and permit holders are not
	 * @throws IllegalStateException if called on a Redis I/O thread while the token is
	 * not computed yet (use {@link #fencingTokenAsync()} there)
	 */
	long fencingToken();

	/**
	 * The {@linkplain #fencingToken() fencing token} without blocking the calling thread,
	 * for reactive and event-loop code. Computed once, like {@link #fencingToken()}; the
	 * future never completes the caller's continuations on a Redis I/O thread, and
	 * completes exceptionally where {@link #fencingToken()} would throw. The default
	 * computes it on the calling thread.
	 * @return a future of the token
	 */
	default CompletableFuture<Long> fencingTokenAsync() {
		try {
			return CompletableFuture.completedFuture(fencingToken());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Validity left, already net of the time spent acquiring and of the allowance for
	 * clock drift between nodes; {@link Duration#ZERO} once expired, lost or released.
	 * @return the remaining validity
	 */
	Duration remaining();

	/**
	 * Whether this lease is still held: not released, not lost, and not expired.
	 * @return whether the lease is valid
	 */
	boolean isValid();

	/**
	 * Release the lease on every node. Idempotent; a second call does nothing.
	 * @throws LeaseLostException if the lease had been lost before this release and the
	 * registry is set to report losses by throwing (the keys are released all the same)
	 */
	void release();

	/**
	 * Release without blocking the calling thread, for reactive and event-loop code. The
	 * stage completes when the nodes answered, or exceptionally with
	 * {@link LeaseLostException} where {@link #release()} would throw it. Idempotent.
	 * @return a stage that completes when the release is done
	 */
	default CompletionStage<Void> releaseAsync() {
		try {
			release();
			return CompletableFuture.completedFuture(null);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Same as {@link #release()}.
	 */
	@Override
	default void close() {
		release();
	}

}
