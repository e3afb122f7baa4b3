package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import io.quorumlock.redis.node.SharedScripts;

/**
 * The one narrow interface between the Redlock algorithm and Redis: each method fans one
 * command out to the nodes in parallel with one deadline and completes, never
 * exceptionally, with the {@link Round.Tally} counted against the quorum. "Voting" rounds
 * go only to the nodes that may vote now (restart guard, a master listed twice); the
 * others go to every node, since a node held back may still hold a key. The Lettuce
 * implementation is {@link RedisVoters}; tests use a scripted fake.
 */
interface Voters {

	/** Number of nodes, N. */
	int size();

	/** Votes a grant needs, N/2+1. */
	int quorum();

	/** Nodes that may vote now. */
	int votingNow();

	/**
	 * How soon a quorum of nodes may vote, as far as the nodes know: zero when one does
	 * now or may any moment (a node slow to answer, a connection being prepared or
	 * re-established: down for less than {@code reconnectingNanos}), the time until
	 * enough nodes held back by the restart guard vote again, or {@link Long#MAX_VALUE}
	 * when fewer than a quorum are connected or down only for a moment (down, refused, a
	 * wrong password) or can vote at all (one listed twice, evicting).
	 * @param reconnectingNanos how long a connection may have been down and still count
	 * as coming back: a caller passes what it may still spend
	 */
	default long quorumPossibleInNanos(long reconnectingNanos) {
		return (votingNow() >= quorum()) ? 0 : Long.MAX_VALUE;
	}

	/**
	 * The deadline of a write round: with sync-replicas it also covers the {@code WAIT}.
	 */
	long writeRoundNanos();

	/**
	 * {@code SET key token NX PX lease} (then {@code WAIT} with sync-replicas), voting.
	 */
	CompletableFuture<Round.Tally> acquire(String key, String token, long leaseMillis);

	/**
	 * {@link #acquire(String, String, long)} with {@code timeoutNanos} as each node's
	 * deadline instead of the node timeout: an acquisition whose rounds were left
	 * undecided by silence gives its next rounds longer (a round still decides as soon as
	 * a quorum has answered, so this costs nothing while masters answer).
	 */
	default CompletableFuture<Round.Tally> acquire(String key, String token, long leaseMillis, long timeoutNanos) {
		return acquire(key, token, leaseMillis);
	}

	/** Compare-and-extend to the lease, voting; a write a later grant relies on. */
	CompletableFuture<Round.Tally> extend(String key, String token, String leaseMillis);

	/**
	 * {@link #extend(String, String, String)} with {@code timeoutNanos} as each node's
	 * deadline: a renewal tried again after silence waits for answers as long as the
	 * lease's validity allows.
	 */
	default CompletableFuture<Round.Tally> extend(String key, String token, String leaseMillis, long timeoutNanos) {
		return extend(key, token, leaseMillis);
	}

	/**
	 * The watchdog's renewal: {@link #extend}, which an implementation may send together
	 * with the other renewals due on the same node (one call per node per batch) as long
	 * as each key still gets its own round. By default, {@link #extend}.
	 */
	default CompletableFuture<Round.Tally> renew(String key, String token, String leaseMillis) {
		return extend(key, token, leaseMillis);
	}

	/**
	 * Whether {@link #renewMany} is there: renewals of single keys sent together, one
	 * call per node for all of them.
	 */
	default boolean renewsMany() {
		return false;
	}

	/**
	 * The watchdog's renewal of single-key leases together: for each key, what
	 * {@link #renew} would count, in one round for all of them.
	 * @param keys the lock keys, at most
	 * {@link io.quorumlock.redis.node.RenewalBatch#MAX_KEYS}
	 * @param args per key, its token then its lease in milliseconds
	 * @return completes, never exceptionally, with each key's tally, in order
	 * @throws UnsupportedOperationException unless {@link #renewsMany()}
	 */
	default CompletableFuture<Round.Tally[]> renewMany(String[] keys, String[] args) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " renews one key per round");
	}

	/**
	 * Whether releases hand a key straight to the next waiter queued for it
	 * ({@link #queue}): one standalone master, without sync-replicas. False by default.
	 */
	default boolean handsOver() {
		return false;
	}

	/**
	 * A waiting round of an exclusive acquisition, voting: {@code SET NX PX}, else the
	 * waiter's entry in the key's queue written or refreshed, so that a release hands the
	 * key to its token ({@link io.quorumlock.redis.node.Script#QUEUE}). Only where
	 * {@link #handsOver()}.
	 * @param entryMillis how long the entry lasts unless refreshed
	 * @param channel where a release publishes the hand-over to this waiter
	 * @param timeoutNanos each node's deadline (see
	 * {@link #acquire(String, String, long, long)})
	 */
	default CompletableFuture<Round.Tally> queue(String key, String token, long leaseMillis, long entryMillis,
			String channel, long timeoutNanos) {
		throw new UnsupportedOperationException("no hand-over here");
	}

	/**
	 * Where {@link #handsOver()}: the master's connection epoch and pub/sub connection
	 * now, as one number that changes when either reconnects; -1 while the pub/sub
	 * connection is not open. Two equal readings mean that a hand-over heard between them
	 * came from the server process that took the waiter's entry, and that the engine saw
	 * no reconnect (nor so no restart) in between.
	 */
	default long handOverLink() {
		return -1;
	}

	/**
	 * Compare-and-delete and publish, on every node; a node that fails it without a reply
	 * is sent it again when back, while a SET of this lease could still be alive there.
	 */
	CompletableFuture<Round.Tally> release(String key, String token, long leaseNanos);

	/**
	 * Compare-and-{@code PEXPIRE} to {@code keepMillis} (holdAtLeast), on every node; for
	 * an exclusive lock, as {@link #release}, a node that fails it without a reply is
	 * sent it again when back, while the lease could still be alive there (else the key
	 * would stay there for the rest of the lease, not of the hold).
	 */
	CompletableFuture<Round.Tally> keep(String key, String token, long keepMillis, long leaseNanos);

	/**
	 * Fencing step 1, voting: increment the key's counter where this token holds the key,
	 * raising {@code max} to each node's counter.
	 */
	CompletableFuture<Round.Tally> fenceIncrement(String key, String token, String ttlMillis, AtomicLong max);

	/**
	 * Fencing step 3, voting: raise the counter to {@code value} where this token holds
	 * the key.
	 */
	CompletableFuture<Round.Tally> fenceRaise(String key, String token, String value, String ttlMillis);

	/**
	 * Delete a key whoever holds it, on every node, waiting for every answer (an
	 * operator's force-unlock).
	 */
	CompletableFuture<Round.Tally> forceRelease(String key);

	/**
	 * Whether the key is held, voting, for a query that changes nothing
	 * ({@link io.quorumlock.redis.node.Script#HELD}): a yes where the key is there,
	 * whoever holds it, a no where it is not; a node that lost its data, or does not vote
	 * now, is a failure, never a no.
	 * @param timeoutNanos each node's deadline
	 * @throws UnsupportedOperationException if these voters cannot be asked
	 */
	default CompletableFuture<Round.Tally> held(String key, long timeoutNanos) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot be asked who holds a key");
	}

	/**
	 * The same rounds on shared holds ({@link io.quorumlock.LockMode#SHARED}, see
	 * {@link SharedScripts}); the fencing rounds are not among them.
	 * @throws UnsupportedOperationException if these voters have no shared rounds
	 */
	default Voters shared() {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " has no shared rounds");
	}

	/** The voters of a request: {@link #shared()} for a shared one, else these. */
	default Voters of(ResolvedRequest request) {
		return request.isShared() ? shared() : this;
	}

	/**
	 * A waiting exclusive request's intent: where the key is held shared, new shared
	 * grants are refused for {@code ttlMillis}, so that a stream of shared requests
	 * cannot starve it. Fire and forget; by default nothing.
	 */
	default void markIntent(String key, long ttlMillis) {
	}

	/**
	 * What a {@code WRONGTYPE} answer means to an exclusive lease: its key is a string,
	 * shared holders' a hash ({@link SharedScripts}), so the key it held is now held
	 * shared (the shared scripts themselves grant nothing on a string, without an error).
	 */
	String WRONG_TYPE = "WRONGTYPE: this lease no longer holds the key there, "
			+ "it is now held shared by others (or something other than quorumlock wrote it)";

	/**
	 * One line per failed node of a tally, for messages, and what a {@code WRONGTYPE}
	 * answer among them means; empty if none failed.
	 */
	static String failures(Round.Tally tally) {
		if (tally.failures().isEmpty()) {
			return "";
		}
		String failures = String.join("; ", tally.failures());
		return " (" + failures + (failures.contains("WRONGTYPE") ? "; " + WRONG_TYPE : "") + ")";
	}

}
