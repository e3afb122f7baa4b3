package io.quorumlock.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.redis.node.Replies;
import io.quorumlock.redis.node.Timers;

/**
 * Fencing tokens: a number that grows with each holder of the same keys.
 * <p>
 * Each node keeps a counter per lock key ({@code <lock key>:fence}, same hash slot) with
 * its own TTL. A missing counter (never created, expired, or lost in a restart) is seeded
 * from the node's clock in microseconds before it is incremented, so counters never go
 * backwards as long as a node's clock does not step back across a restart and no key
 * takes a million tokens a second.
 * <p>
 * On one node the token is the counter after {@code INCR}, taken by a script that first
 * checks that this lease still holds the key. With a quorum no node sees every holder,
 * so: (1) on every voting node that still holds this lease, {@code INCR} the counter; (2)
 * the token is the maximum; (3) on the same nodes, raise the counter to the token, again
 * only where this lease still holds the key. The token is returned only if (1) and (3)
 * reached a quorum while the lease was valid. A later holder's quorum intersects this one
 * in a node whose counter is already at least the token, and its {@code INCR} there
 * happens after this lease let go of that node, so its token is larger. A node held back
 * by the restart guard takes no part: a counter re-seeded during the guard window could
 * trail tokens issued just before the restart. For several keys, every key's counters
 * take part and the token is the maximum over all of them.
 * <p>
 * With sync-replicas both steps wait for the replicas on every node ({@code WAIT}), so a
 * failover to a replica keeps the counters. A computation that misses the quorum for lack
 * of answers is tried again, whole, after a jittered retry delay while another attempt
 * fits in the lease's validity (a repeated {@code INCR} only makes the token larger).
 * Only an answer decides: a computation finds the lease lost only when a majority of the
 * masters answered that this lease no longer holds a key; silence, a held-back master or
 * a "not mine" from a master that never granted it is retried while the lease is valid.
 */
final class Fencing {

	private final Voters voters;

	private final Timers timers;

	private final Losses losses;

	private final CallerThreads threads;

	private final String counterTtlMillis;

	Fencing(Voters voters, Timers timers, Losses losses, CallerThreads threads, long counterTtlMillis) {
		this.voters = voters;
		this.timers = timers;
		this.losses = losses;
		this.threads = threads;
		this.counterTtlMillis = Long.toString(counterTtlMillis);
	}

	/** The lease's fencing token, computed on the first call, for a caller. */
	CompletableFuture<Long> tokenAsync(RedisLease lease) {
		CompletableFuture<Long> token = lease.fencing(() -> token(lease));
		return token.isDone() ? token.copy() : this.threads.handOver(token);
	}

	/**
	 * The lease's fencing token, computed on the first call; waits through interrupts
	 * (bounded by two rounds), then restores the flag.
	 */
	long tokenForCaller(RedisLease lease) {
		// checked before the computation starts: once started, its reply may race this
		// thread and make a blocking call on an I/O thread pass only by luck
		if (lease.knownFencingToken().isEmpty()) {
			this.threads.checkMayBlock("fencingToken()", lease.request(), "fencingTokenAsync()");
		}
		return Futures.await(lease.fencing(() -> token(lease)));
	}

	CompletableFuture<Long> token(RedisLease lease) {
		CompletableFuture<Long> result = new CompletableFuture<>();
		attempt(lease, result);
		return result;
	}

	/** One attempt; on a quorum unavailable, another while the validity allows. */
	private void attempt(RedisLease lease, CompletableFuture<Long> result) {
		CompletableFuture<Long> once;
		try {
			once = once(lease);
		}
		catch (RuntimeException ex) {
			once = CompletableFuture.failedFuture(ex);
		}
		once.whenComplete((token, error) -> {
			if (error == null) {
				result.complete(token);
				return;
			}
			Throwable cause = Replies.unwrap(error);
			long delay = this.timers.retryDelayNanos();
			// two rounds per attempt
			long next = this.timers.nanoTime() + delay + 2 * this.voters.writeRoundNanos();
			if (cause instanceof QuorumUnavailableException && lease.lost() == null && !lease.isReleased()
					&& Validity.remaining(lease.validUntil(), next) > 0) {
				try {
					this.timers.after(delay, (timeout) -> attempt(lease, result));
					return;
				}
				catch (RuntimeException closed) {
					// the engine is closing: report the last failure
				}
			}
			result.completeExceptionally(cause);
		});
	}

	private CompletableFuture<Long> once(RedisLease lease) {
		if (lease.lost() != null) {
			return CompletableFuture.failedFuture(lease.lost());
		}
		List<String> keys = lease.request().redisKeys();
		AtomicLong max = new AtomicLong(Long.MIN_VALUE);
		CompletableFuture<?>[] increments = new CompletableFuture<?>[keys.size()];
		for (int i = 0; i < increments.length; i++) {
			increments[i] = this.voters.fenceIncrement(keys.get(i), lease.token(i), this.counterTtlMillis, max);
		}
		return CompletableFuture.allOf(increments).thenCompose((ok) -> {
			check(lease, increments, "incremented");
			long token = max.get();
			// one node and one key: its counter is the token. Several keys take the
			// largest of their counters, which every key's counter is then raised to, on
			// one node as on many, or a later holder of one of them would get a smaller
			// token
			if (this.voters.quorum() == 1 && this.voters.size() == 1 && keys.size() == 1) {
				return CompletableFuture.completedFuture(valid(lease, token));
			}
			String value = Long.toString(token);
			CompletableFuture<?>[] raises = new CompletableFuture<?>[keys.size()];
			for (int i = 0; i < raises.length; i++) {
				raises[i] = this.voters.fenceRaise(keys.get(i), lease.token(i), value, this.counterTtlMillis);
			}
			return CompletableFuture.allOf(raises).thenApply((done) -> {
				check(lease, raises, "raised");
				return valid(lease, token);
			});
		});
	}

	private void check(RedisLease lease, CompletableFuture<?>[] rounds, String step) {
		for (CompletableFuture<?> round : rounds) {
			Round.Tally tally = (Round.Tally) round.join();
			if (tally.reached()) {
				continue;
			}
			if (!tally.refused()) {
				// only an answer decides: masters that did not answer (or were held back)
				// may still hold the lease, so this is no loss; tried again while valid
				throw new QuorumUnavailableException(
						lease.request().describe() + ": no fencing token, quorum unavailable: " + step + " "
								+ tally.figures() + ", " + tally.answered() + " answered" + Voters.failures(tally));
			}
			// a majority of the masters answered that this lease no longer holds the key
			throw this.losses.lose(lease, "fencing found the lease gone on " + tally.no() + " of " + tally.nodes()
					+ " nodes (" + tally.figures() + ")" + Voters.failures(tally), false);
		}
	}

	private long valid(RedisLease lease, long token) {
		if (Validity.remaining(lease.validUntil(), this.timers.nanoTime()) <= 0) {
			throw this.losses.lose(lease, "expired while its fencing token was computed", false);
		}
		if (lease.lost() != null) {
			throw lease.lost();
		}
		return token;
	}

}
