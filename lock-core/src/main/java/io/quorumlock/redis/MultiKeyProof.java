package io.quorumlock.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The proof round of a multi-key grant. The earlier keys' own rounds prove them held (on
 * a quorum, uninterrupted) only until the earliest of their validities; once less than
 * two thirds of a lease is left of it (the point at which a lease would have been
 * renewed) the grant runs a compare-and-extend round instead, so that it never stands on
 * a key that may have expired, and a new lease starts with its lease less the proof round
 * and the drift allowance: two thirds of it at least when a round takes less than a third
 * of the lease, which the node-timeout rule gives without sync-replicas (with them a
 * round also waits for the replicas, and may take longer).
 * <p>
 * The round extends every key, the last one too, to the full lease where the token still
 * holds it, on every node in parallel. A key extended on a quorum was held by this token
 * on each of those nodes since its SET (a token is set once and never comes back after an
 * expiry or a delete), so no other client can have held it on a quorum meanwhile; its
 * validity is then measured from the start of this round. Each key is proven with the
 * token of the round that won it, which no other round of this acquisition ever used.
 */
final class MultiKeyProof {

	/**
	 * What a proof came to.
	 *
	 * @param validUntil the validity of the whole lease when proven
	 * @param failure why the keys must be taken again, or null when proven
	 * @param undecided whether the failure was for want of answers (or of time), not a
	 * quorum's answer that a key is gone: the keys are then taken again within the retry
	 * budget, as a round without a deciding answer is
	 */
	record Outcome(long validUntil, String failure, boolean undecided) {
	}

	private MultiKeyProof() {
	}

	/**
	 * Whether the earlier keys, proven until {@code validUntil}, must be proven again
	 * before the grant.
	 */
	static boolean needed(long validUntil, long now, long leaseNanos) {
		return Validity.remaining(validUntil, now) < leaseNanos - leaseNanos / 3;
	}

	/**
	 * Run the proof round on {@code earlier}, the keys before the last.
	 * @param lastUntil the validity of the last key, from its own round
	 */
	static CompletableFuture<Outcome> run(Acquirer parts, List<String> earlier, String[] tokens, long leaseMillis,
			long leaseNanos, long lastUntil) {
		String leaseArg = Long.toString(leaseMillis);
		long proofStart = parts.timers.nanoTime();
		CompletableFuture<?>[] rounds = new CompletableFuture<?>[earlier.size()];
		for (int i = 0; i < rounds.length; i++) {
			// a write a later grant relies on: with sync-replicas it waits for the
			// replicas too; each key with the token of the round that won it
			rounds[i] = parts.voters.extend(earlier.get(i), tokens[i], leaseArg);
		}
		return CompletableFuture.allOf(rounds).handle((ok, error) -> {
			long now = parts.timers.nanoTime();
			long until = Math.min(lastUntil, parts.validity.validUntil(proofStart, leaseNanos));
			String lost = null;
			boolean undecided = true;
			for (int i = 0; i < rounds.length && lost == null; i++) {
				Round.Tally tally = (Round.Tally) rounds[i].join();
				if (!tally.reached()) {
					// gone only where a majority answered so; silence leaves it open
					undecided = !tally.refused();
					lost = earlier.get(i) + (undecided ? " not proven held" : " no longer held")
							+ " while waiting for later keys: extended " + tally.figures() + Voters.failures(tally);
				}
			}
			if (lost == null && Validity.remaining(until, now) > 0) {
				return new Outcome(until, null, false);
			}
			return new Outcome(until, (lost != null) ? lost : "validity exhausted by the proof round", undecided);
		});
	}

}
