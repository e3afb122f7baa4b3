package io.quorumlock.redis;

import java.util.concurrent.TimeUnit;

import io.quorumlock.LockException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.QuorumUnavailableException;

/**
 * The failures an acquisition ends with, each naming the lock, the figures, the time
 * spent and, for a waiting request, how long it could wait and how many rounds it ran.
 */
final class NotAcquired {

	private NotAcquired() {
	}

	/** Not acquired, for {@code why}. */
	static LockNotAcquiredException because(ResolvedRequest request, String why, long elapsedNanos, int rounds) {
		return new LockNotAcquiredException(request.describe() + ": not acquired, " + why + ", " + millis(elapsedNanos)
				+ " ms elapsed, waited at most " + request.waitAtMost().toMillis() + " ms, " + rounds(rounds));
	}

	/**
	 * Too few nodes answered the last round, or those that did not answer might have made
	 * up the quorum: the call ran out of its wait and retry budget without an answer that
	 * decides.
	 */
	static QuorumUnavailableException quorumUnavailable(ResolvedRequest request, Round.Tally tally, long elapsedNanos,
			int rounds) {
		return quorumUnavailable(request, null, tally, elapsedNanos, rounds);
	}

	/**
	 * As {@link #quorumUnavailable(ResolvedRequest, Round.Tally, long, int)}, with a
	 * reason first.
	 */
	static QuorumUnavailableException quorumUnavailable(ResolvedRequest request, String why, Round.Tally tally,
			long elapsedNanos, int rounds) {
		return new QuorumUnavailableException(request.describe() + ": quorum unavailable: "
				+ ((why != null) ? why + ", " : "") + "acquired " + tally.figures() + ", " + tally.answered()
				+ " answered, " + millis(elapsedNanos) + " ms elapsed" + waited(request, rounds)
				+ ((tally.silent() > 0 && request.waitAtMost().isZero()) ? ", " + rounds(rounds) : "")
				+ Voters.failures(tally));
	}

	/**
	 * The wait ran out in the local queue: contention, unless the caller ahead was kept
	 * waiting by a missing quorum, which is then what this caller is told too.
	 */
	static LockException queuedOut(ResolvedRequest request, Voters voters, long elapsedNanos, int rounds) {
		int voting = voters.votingNow();
		int quorum = voters.quorum();
		if (voting >= quorum) {
			return because(request, "queued behind another caller in this process", elapsedNanos, rounds);
		}
		return new QuorumUnavailableException(
				request.describe() + ": quorum unavailable: " + voting + " of " + voters.size()
						+ " nodes voting, quorum " + quorum + ", while queued behind another caller in this process, "
						+ millis(elapsedNanos) + " ms elapsed" + waited(request, rounds));
	}

	/** For a waiting request: how long it could wait and how many rounds it ran. */
	private static String waited(ResolvedRequest request, int rounds) {
		return request.waitAtMost().isZero() ? ""
				: ", waited at most " + request.waitAtMost().toMillis() + " ms, " + rounds(rounds);
	}

	private static String rounds(int rounds) {
		return rounds + ((rounds == 1) ? " round" : " rounds");
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

}
