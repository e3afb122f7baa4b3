package io.quorumlock.redis;

import java.util.List;

import io.quorumlock.LockException;
import io.quorumlock.LockNotAcquiredException;

/**
 * What one {@link Acquisition} is about and has spent: its request, token, deadline and
 * lease, its result and rounds, and how it words a failure; the steps are in
 * {@link Acquisition}.
 */
abstract class AcquisitionState {

	final Acquirer parts;

	final ResolvedRequest request;

	final List<String> keys;

	final String token;

	final long startedAt;

	final long deadline;

	final long leaseNanos;

	final long leaseMillis;

	/** What the caller holds; cancelling it stops the wait in progress. */
	final AcquisitionResult result = new AcquisitionResult();

	/** Rounds run so far, for the failure messages. */
	int rounds;

	AcquisitionState(Acquirer parts, ResolvedRequest request, String token, long startedAt) {
		this.parts = parts;
		this.request = request;
		this.keys = request.redisKeys();
		this.token = token;
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
