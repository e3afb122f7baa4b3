package io.quorumlock.redis;

import java.util.concurrent.TimeUnit;

/**
 * A waiting exclusive request is not starved by a stream of shared ones: each round it
 * loses while it goes on waiting leaves an intent mark on the nodes where the key is held
 * shared ({@link SharedScripts#INTENT}), and new shared grants respect it. The mark lasts
 * two of the longest retry delays plus two rounds, so a waiter that goes on retrying
 * keeps it, and one that gave up (or died) holds nobody back for long. It is sent without
 * waiting for it, and only where the key is held shared does it write anything.
 */
final class ExclusiveIntent {

	private ExclusiveIntent() {
	}

	static void mark(Acquirer parts, String key) {
		long nanos = 2 * parts.timers.retryMaxNanos() + 2 * parts.voters.writeRoundNanos();
		parts.voters.markIntent(key, Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
	}

}
