package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;

import io.quorumlock.LockRequest;
import io.quorumlock.LockRules;
import io.quorumlock.QuorumUnavailableException;

/**
 * The read-only queries of who holds a key: whether anyone does, decided by the nodes'
 * answers alone (one voting round, {@link Voters#held}), and whether this thread or this
 * engine does, from the engine's own bookkeeping of its leases.
 * <p>
 * A node that did not answer, is down or is held back is unknown: the round waits for
 * silent nodes up to the retry budget (a stalled master costs latency, not a wrong or
 * failed answer) and, when the answers still decide neither way, the query fails with
 * {@link QuorumUnavailableException} rather than read the unknown as "free".
 */
final class LockQuery {

	private final Voters voters;

	private final RequestResolver resolver;

	private final Reentry reentry;

	private final LocalGates gates;

	private final CallerThreads threads;

	/** Each node's deadline for its answer. */
	private final long timeoutNanos;

	LockQuery(Voters voters, RequestResolver resolver, Reentry reentry, LocalGates gates, CallerThreads threads,
			long timeoutNanos) {
		this.voters = voters;
		this.resolver = resolver;
		this.reentry = reentry;
		this.gates = gates;
		this.threads = threads;
		this.timeoutNanos = timeoutNanos;
	}

	boolean isLocked(LockRequest request) {
		ResolvedRequest resolved = resolve(request);
		this.threads.checkMayBlock("isLocked", resolved, "isLockedAsync");
		return Futures.await(ask(resolved));
	}

	CompletableFuture<Boolean> isLockedAsync(LockRequest request) {
		ResolvedRequest resolved;
		try {
			resolved = resolve(request);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return this.threads.handOver(ask(resolved));
	}

	private CompletableFuture<Boolean> ask(ResolvedRequest resolved) {
		return this.voters.held(resolved.redisKeys().get(0), this.timeoutNanos)
			.thenApply((tally) -> decide(resolved, tally));
	}

	/**
	 * Held when a quorum answered that the key is there; free when so many answered that
	 * it is not that no holder can have a quorum; otherwise unknown.
	 */
	static boolean decide(ResolvedRequest resolved, Round.Tally tally) {
		if (tally.reached()) {
			return true;
		}
		if (tally.refused()) {
			return false;
		}
		int unknown = tally.nodes() - tally.yes() - tally.no();
		throw new QuorumUnavailableException(resolved.describe() + ": cannot tell whether it is held: " + tally.yes()
				+ " of " + tally.nodes() + " nodes answered held, " + tally.no() + " free, " + unknown
				+ " unknown, quorum " + tally.quorum() + Voters.failures(tally));
	}

	boolean isHeldByCurrentThread(LockRequest request) {
		RedisLease lease = this.reentry.heldInScope(resolve(request));
		return lease != null && holds(lease);
	}

	boolean isHeldByThisInstance(LockRequest request) {
		String key = resolve(request).redisKeys().get(0);
		for (RedisLease lease : this.gates.leases()) {
			if (lease.request().redisKeys().contains(key) && holds(lease)) {
				return true;
			}
		}
		return false;
	}

	private static boolean holds(RedisLease lease) {
		return !lease.isReleased() && lease.isValid();
	}

	private ResolvedRequest resolve(LockRequest request) {
		return this.resolver.resolve(LockRules.checkQuery(request));
	}

}
