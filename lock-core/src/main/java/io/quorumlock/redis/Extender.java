package io.quorumlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.quorumlock.LockRules;
import io.quorumlock.redis.node.Replies;
import io.quorumlock.redis.node.Timers;

/**
 * {@link io.quorumlock.Lease#extend(Duration)}: the keys of a lease without renewal set
 * to a new lease by the round renewal runs ({@link ExtensionRound}). It counts only if
 * the lease was valid when the round began and the round reached a quorum on every key;
 * the lease then takes the round's validity and its watchdog's expiry check moves there.
 * A shorter lease shortens the validity before its round is sent. A round that misses the
 * quorum for lack of answers is tried again after a jittered retry delay while another
 * fits in the validity left, as renewal is; a quorum that answered no, or no round left,
 * marks the lease lost, as a failed renewal does. A lease's extensions run one after
 * another, so that rounds of different lengths never race on the nodes; renewing leases
 * without {@code holdAtMost} are refused. Before a round is sent the lease's release redo
 * window grows to the new length ({@link RedisLease#mayLastFor}), whatever the outcome. A
 * lease that renews with {@code holdAtMost} is extended by a round of its own lease,
 * after which the end of its renewal moves to the new length from the round's start
 * (ShedLock's {@code lockAtMostFor} of an extension); it may then race a renewal round of
 * the same length, which is harmless.
 */
final class Extender {

	/** Rounds tried again after one without a quorum of answers. */
	static final int RETRIES = 2;

	private final LeaseWatchdog watchdog;

	private final Losses losses;

	private final CallerThreads threads;

	private final Timers timers;

	private final Duration nodeTimeout;

	private final RestartGuard guard;

	Extender(LeaseWatchdog watchdog, Losses losses, CallerThreads threads, Timers timers, Duration nodeTimeout,
			RestartGuard guard) {
		this.watchdog = watchdog;
		this.losses = losses;
		this.threads = threads;
		this.timers = timers;
		this.nodeTimeout = nodeTimeout;
		this.guard = guard;
	}

	/** A new minimum hold, checked for null (null stands for "keep it" inside). */
	static Duration checkHold(Duration holdAtLeast) {
		if (holdAtLeast == null) {
			throw new IllegalArgumentException("holdAtLeast must not be null");
		}
		return holdAtLeast;
	}

	/**
	 * Extend for a blocking caller.
	 * @param holdAtLeast the new minimum hold, or null to keep the lease's
	 */
	boolean extendForCaller(RedisLease lease, Duration length, Duration holdAtLeast) {
		check(lease, length, holdAtLeast);
		this.threads.checkMayBlock("extend()", lease.request(), "extendAsync()");
		return Futures.await(extend(lease, length, holdAtLeast));
	}

	/** Extend for a caller that must not block, keeping the minimum hold. */
	CompletableFuture<Boolean> extendAsync(RedisLease lease, Duration length) {
		try {
			check(lease, length, null);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		CompletableFuture<Boolean> extended = extend(lease, length, null);
		return extended.isDone() ? extended.copy() : this.threads.handOver(extended);
	}

	private void check(RedisLease lease, Duration length, Duration holdAtLeast) {
		ResolvedRequest request = lease.request();
		String where = "extend() of " + request.describe() + ": ";
		if (length == null || length.isNegative() || length.isZero()) {
			throw new IllegalArgumentException(where + "lease must be positive, was " + length);
		}
		if (request.renew()) {
			checkRenewing(where, request, length, holdAtLeast);
			return;
		}
		Optional<String> problem = LockRules.leaseProblem(length, this.nodeTimeout);
		if (problem.isEmpty() && holdAtLeast != null) {
			problem = LockRules.holdAtLeastProblem(holdAtLeast, length, false);
		}
		if (problem.isPresent()) {
			throw new IllegalArgumentException(where + problem.get());
		}
		this.guard.check(new ResolvedRequest(request.request(), request.redisKeys(), length, request.waitAtMost(),
				false, request.holdAtMost(), request.holdAtLeast()));
	}

	/**
	 * A renewing lease is extended by moving the end of its renewal ({@code holdAtMost})
	 * to {@code length} from now; its keys keep the lease they were taken with, so the
	 * restart guard is not concerned. Unbounded renewal has nothing to move.
	 */
	private static void checkRenewing(String where, ResolvedRequest request, Duration length, Duration holdAtLeast) {
		if (request.holdAtMost().isEmpty()) {
			throw new IllegalStateException(where + "the lease renews itself every lease/3 without holdAtMost "
					+ "(renew=true); extend() is for leases taken with renew(false) or with a holdAtMost");
		}
		Optional<String> problem = LockRules.holdAtMostProblem(length, request.lease()).map((text) -> "new " + text);
		if (problem.isEmpty() && holdAtLeast != null && holdAtLeast.compareTo(length) > 0) {
			problem = Optional.of("holdAtLeast " + holdAtLeast.toMillis() + " ms is longer than the new holdAtMost "
					+ length.toMillis() + " ms");
		}
		if (problem.isPresent()) {
			throw new IllegalArgumentException(where + problem.get());
		}
	}

	/** Start the extension once those asked for before it have completed. */
	CompletableFuture<Boolean> extend(RedisLease lease, Duration length, Duration holdAtLeast) {
		CompletableFuture<Boolean> mine = new CompletableFuture<>();
		CompletableFuture<Boolean> before = lease.queueExtension(mine);
		Runnable start = () -> round(lease, length, holdAtLeast, RETRIES).whenComplete((extended, error) -> {
			if (error != null) {
				mine.completeExceptionally(Replies.unwrap(error));
			}
			else {
				mine.complete(extended);
			}
		});
		if (before == null) {
			start.run();
		}
		else {
			before.whenComplete((extended, error) -> start.run());
		}
		return mine;
	}

	/**
	 * One attempt: a round on every key; one that missed the quorum for lack of answers
	 * is tried again, as renewal does, while another fits in the validity left, but at
	 * most {@link #RETRIES} times: the caller waits for the outcome.
	 */
	private CompletableFuture<Boolean> round(RedisLease lease, Duration length, Duration holdAtLeast, int retries) {
		long start = this.timers.nanoTime();
		if (lease.isReleased() || lease.lost() != null) {
			return CompletableFuture.completedFuture(false);
		}
		boolean renewing = lease.request().renew();
		String what = renewing ? "extension of holdAtMost to " + length.toMillis() + " ms"
				: "extension to " + length.toMillis() + " ms";
		// a renewing lease's keys keep their lease; its renewal end moves instead
		Duration keys = renewing ? lease.request().lease() : length;
		if (Validity.remaining(lease.validUntil(), start) <= 0) {
			this.losses.lose(lease, "expired before its " + what, false);
			return CompletableFuture.completedFuture(false);
		}
		ExtensionRound rounds = this.watchdog.rounds();
		lease.mayLastFor(keys.toNanos());
		long shortest = rounds.validUntil(start, keys);
		if (shortest - lease.validUntil() < 0) {
			// a shorter lease shortens the validity at once: whatever the outcome, some
			// nodes may have the shorter TTL now
			lease.extended(shortest, lease.holdUntil());
			this.watchdog.rearm(lease);
		}
		return rounds.run(lease, keys, start, what).thenCompose((outcome) -> {
			if (!outcome.extended()) {
				if (!outcome.mayRetry()) {
					// a majority of the masters answered that the lease is gone
					this.losses.lose(lease, outcome.failure(), false);
					return CompletableFuture.completedFuture(false);
				}
				long delay = (retries > 0) ? rounds.retryDelayNanos(lease) : -1;
				if (delay < 0) {
					// no answer decided: not extended, yet not lost either; the lease
					// holds
					// until its validity runs out, and the watchdog declares it lost then
					return CompletableFuture.completedFuture(false);
				}
				CompletableFuture<Boolean> retried = new CompletableFuture<>();
				this.timers
					.schedule(() -> round(lease, length, holdAtLeast, retries - 1).whenComplete((extended, error) -> {
						if (error != null) {
							retried.completeExceptionally(error);
						}
						else {
							retried.complete(extended);
						}
					}), delay);
				return retried;
			}
			if (lease.isReleased() || lease.lost() != null) {
				// released or found expired
				return CompletableFuture.completedFuture(false);
			}
			// measured from the answers, so the keys are never kept too briefly
			long holdUntil = (holdAtLeast != null) ? this.timers.nanoTime() + holdAtLeast.toNanos() : lease.holdUntil();
			lease.extended(outcome.validUntil(), holdUntil);
			if (renewing) {
				lease.renewUntil(start + length.toNanos());
			}
			this.watchdog.rearm(lease);
			// a watchdog tick that read the old validity may have declared it lost
			return CompletableFuture.completedFuture(lease.lost() == null && !lease.isReleased());
		});
	}

}
