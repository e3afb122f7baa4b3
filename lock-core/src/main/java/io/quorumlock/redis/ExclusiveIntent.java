package io.quorumlock.redis;

import java.util.concurrent.TimeUnit;
import io.quorumlock.redis.node.SharedScripts;

/**
 * A waiting exclusive request is not starved by a stream of shared ones: a round it loses
 * while it goes on waiting leaves an intent mark on the nodes where the key is held
 * shared ({@link SharedScripts#INTENT}), and new shared grants respect it. The mark lasts
 * two of the longest retry delays plus two rounds, so a waiter that goes on retrying
 * keeps it, and one that gave up (or died) holds nobody back for long. It is sent without
 * waiting for it, and only where the key is held shared does it write anything.
 * <p>
 * One per waiting acquisition, made at its first lost round: it renews the mark only once
 * the longest retry delay has passed since the last. The next lost round comes at most a
 * retry delay and a round after the last, so the mark never lapses while the acquisition
 * waits, for one script call per retry period rather than per lost round (a herd of
 * waiters woken by each release loses many). Used by one acquisition's steps, one at a
 * time.
 */
final class ExclusiveIntent {

	/** The key of the last mark sent, and when. */
	private String key;

	private long markedAt;

	/**
	 * A round on {@code key} was lost at {@code now}: mark the intent unless marked
	 * lately.
	 */
	void lost(Acquirer parts, String key, long now) {
		if (key.equals(this.key) && now - this.markedAt < parts.timers.retryMaxNanos()) {
			return;
		}
		this.key = key;
		this.markedAt = now;
		long nanos = 2 * parts.timers.retryMaxNanos() + 2 * parts.voters.writeRoundNanos();
		parts.voters.markIntent(key, Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
	}

}
