package io.quorumlock.redis;

import java.util.concurrent.TimeUnit;

/**
 * {@code holdAtLeast} (ShedLock's lockAtLeastFor): a lease released before its minimum
 * hold is over keeps its keys on the nodes for the remainder, through a token-checked
 * {@code PEXPIRE} ({@link Voters#keep}) instead of the delete. Renewal stops with the
 * release as usual, and nothing is published, so waiters find the key until it expires.
 */
final class MinimumHold {

	private MinimumHold() {
	}

	/**
	 * Milliseconds the keys must stay after a release at {@code now}, rounded up; 0 when
	 * the lease has no minimum hold or it has passed. Measured from the grant (or from an
	 * extension's answers, when it set a new minimum hold), which is never earlier than
	 * the caller's call, so the key is never kept too briefly.
	 */
	static long remainderMillis(RedisLease lease, long now) {
		long left = lease.holdUntil() - now;
		return (left > 0) ? TimeUnit.NANOSECONDS.toMillis(left + 999_999) : 0;
	}

}
