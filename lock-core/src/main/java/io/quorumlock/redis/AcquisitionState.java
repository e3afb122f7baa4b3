package io.quorumlock.redis;

import java.util.List;

import io.quorumlock.LockException;
import io.quorumlock.LockNotAcquiredException;

/**
 * What one {@link Acquisition} is about and has spent: its request, deadline and lease,
 * the token of the round that won each key, its result and rounds, and how it words a
 * failure; the steps are in {@link Acquisition}.
 */
abstract class AcquisitionState {

	final Acquirer parts;

	final ResolvedRequest request;

	final List<String> keys;

	/**
	 * Per key, the token of the round that won it: every round draws a fresh token, so
	 * the undo, re-send or late arrival of an earlier round's command can never match a
	 * later round's grant, whichever connection, queue or retry carries it. Handed to the
	 * lease, whose renewals, release, proof and fencing use each key's own token.
	 */
	final String[] tokens;

	final long startedAt;

	final long deadline;

	final long leaseNanos;

	final long leaseMillis;

	/** What the caller holds; cancelling it stops the wait in progress. */
	final AcquisitionResult result;

	/** Rounds run so far, for the failure messages. */
	int rounds;

	AcquisitionState(Acquirer parts, ResolvedRequest request, long startedAt) {
		this.parts = parts;
		this.request = request;
		this.keys = request.redisKeys();
		this.tokens = new String[this.keys.size()];
		this.result = new AcquisitionResult(parts.pending);
		this.startedAt = startedAt;
		this.deadline = startedAt + request.waitAtMost().toNanos();
		this.leaseNanos = request.lease().toNanos();
		this.leaseMillis = request.lease().toMillis();
	}

	/** Whether the request waits at all (else one try). */
	boolean waits() {
		return !this.request.waitAtMost().isZero();
	}

	LockException queuedOut() {
		return NotAcquired.queuedOut(this.request, this.parts.voters, this.parts.timers.nanoTime() - this.startedAt,
				this.rounds);
	}

	LockNotAcquiredException notAcquired(String why) {
		return NotAcquired.because(this.request, why, this.parts.timers.nanoTime() - this.startedAt, this.rounds);
	}

}
