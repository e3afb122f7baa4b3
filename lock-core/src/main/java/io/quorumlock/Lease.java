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
	 * Keys this lease holds, exactly as the request named them
	 * ({@link LockRequest#keys()}: an annotation's evaluated {@code key}, the argument of
	 * {@link LockRequest#of}), sorted; neither the lock name nor the Redis key names
	 * ({@code lock:<name>:{<key>}}) are in them. A lease of one key returns a list of
	 * one.
	 * @return the keys, an unmodifiable list
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
	 * Throw unless this lease still protects its keys: a cheap check, without a round to
	 * the masters, for a long method to call in its loop, so that its work stops once the
	 * lease is lost instead of running on beside the next holder: <pre>{@code
	 * for (Order order : batch) {
	 *     lease.checkValid();   // or CurrentLease.checkValid() in a @DistributedLock method
	 *     process(order);
	 * }
	 * }</pre> It reads what the lease already knows: its validity (net of clock drift)
	 * and a loss its renewal, an extension, fencing or a release found. It cannot know of
	 * a loss no master has reported yet; the fencing token is what protects a store from
	 * such a holder. The default throws when {@link #isValid()} is false.
	 * @throws LeaseLostException if the lease is lost, expired or released, with the
	 * loss's own message (and the loss as its cause) when it is known
	 */
	default void checkValid() {
		if (!isValid()) {
			throw new LeaseLostException("lease of " + keys() + " is no longer valid: lost, expired or released",
					false);
		}
	}

	/**
	 * A stage that completes with the loss once this lease is lost before its release
	 * (its renewal found it gone or ran out of time, or its validity ran out, or an
	 * extension, fencing or the release found it lost), to stop asynchronous work that
	 * runs under it; it never completes for a lease released while it was held. It may
	 * complete on an engine thread: hand heavy work to an executor. The default never
	 * completes (a registry that does not tell).
	 * @return the stage of the loss
	 */
	default CompletionStage<LeaseLostException> whenLost() {
		return new CompletableFuture<>();
	}

	/**
	 * Set every key of this lease to expire {@code lease} from now, for a lease taken
	 * without renewal ({@link LockRequest#renew(boolean) renew(false)}) whose work runs
	 * longer than planned. The keys are extended where this lease's token still holds
	 * them (a token-checked compare-and-expire, the round renewal uses, waiting for
	 * replicas where {@code sync-replicas} is set), on every node that may vote. The
	 * extension counts only if a quorum extended every key and the lease was still valid
	 * when the round began; the new validity is measured from the round's start, net of
	 * the clock-drift allowance, and replaces the old one, so a shorter {@code lease}
	 * shortens it. The minimum hold ({@code holdAtLeast}) is kept as it was; see
	 * {@link #extend(Duration, Duration)} to set a new one.
	 * <p>
	 * A lease that renews itself with a {@link LockRequest#holdAtMost(Duration)
	 * holdAtMost} is extended differently: its keys are renewed once with the lease they
	 * were taken with, and, if that counts, the end of its renewal moves to {@code lease}
	 * from the round's start (a new {@code holdAtMost}, measured from now); the watchdog
	 * then renews it until that end, and the keys live at most one lease past it. This is
	 * how ShedLock's {@code lockAtMostFor} is extended on a short renewed lease.
	 * <p>
	 * Extensions of one lease run one after another. A shared lease extends its own hold;
	 * a lease of one of several {@link LockRequest#permits(int) permits} extends its
	 * permit; a lease of several keys extends all of them, or counts as not extended. A
	 * re-entry extends the lease it re-entered.
	 * @param lease how long from now the keys live; positive, longer than three node
	 * timeouts and not longer than the restart guard, like any lease; for a lease that
	 * renews with {@code holdAtMost}, how long from now it is renewed, not shorter than
	 * its lease
	 * @return true if extended; false if the lease is no longer held: released, lost,
	 * expired, or a quorum of nodes did not extend it, in which case it is now lost (as a
	 * failed renewal is: {@link #isValid()} turns false and the listeners hear of it). A
	 * round that lacked a quorum of answers is tried again, twice at most, after the
	 * jittered retry delay and while another round fits in the validity left; a quorum
	 * that answered no is final.
	 * @throws IllegalArgumentException if {@code lease} is null, not positive, or breaks
	 * a rule every lease follows, naming the lease and the figures
	 * @throws IllegalStateException if the lease renews itself without {@code holdAtMost}
	 * (its watchdog already extends it every lease/3, with the length it was taken with,
	 * for as long as it is held), or if called on a Redis I/O thread (use
	 * {@link #extendAsync(Duration)} there)
	 * @throws UnsupportedOperationException if this registry cannot extend a lease
	 */
	default boolean extend(Duration lease) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot extend a lease");
	}

	/**
	 * {@link #extend(Duration)}, with a new minimum hold: once extended, a release keeps
	 * the keys until {@code holdAtLeast} after the extension (ShedLock's
	 * {@code lockAtLeastFor} of an extension), instead of the minimum hold the lease had;
	 * {@link Duration#ZERO} releases at once. A lease that is not extended keeps its
	 * minimum hold.
	 * @param lease how long from now the keys live, as for {@link #extend(Duration)}
	 * @param holdAtLeast the new minimum hold, from the extension; not negative, not
	 * longer than {@code lease}
	 * @return true if extended, false if the lease is no longer held, as for
	 * {@link #extend(Duration)}
	 * @throws IllegalArgumentException if {@code lease} or {@code holdAtLeast} is null or
	 * out of range, naming it and the figures
	 * @throws IllegalStateException as for {@link #extend(Duration)}
	 * @throws UnsupportedOperationException if this registry cannot extend a lease
	 */
	default boolean extend(Duration lease, Duration holdAtLeast) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot extend a lease");
	}

	/**
	 * {@link #extend(Duration)} without blocking the calling thread, for reactive and
	 * event-loop code. The future never completes the caller's continuations on a Redis
	 * I/O thread, and completes exceptionally where {@link #extend(Duration)} would
	 * throw. The default extends on the calling thread.
	 * @param lease how long from now the keys live, as for {@link #extend(Duration)}
	 * @return a future of whether the lease was extended
	 */
	default CompletableFuture<Boolean> extendAsync(Duration lease) {
		try {
			return CompletableFuture.completedFuture(extend(lease));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

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
