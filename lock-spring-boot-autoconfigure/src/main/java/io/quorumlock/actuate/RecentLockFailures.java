package io.quorumlock.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.util.Assert;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockListener;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;

/**
 * The last failure of each lock and outcome, with its full message (which master failed
 * and why), for the {@code locks} endpoint: what an API client is not told, an operator
 * can read there. Fed as a {@link LockListener}; keyed by the lock's label (never an
 * evaluated key) and the outcome ({@code timeout}, {@code quorum_unavailable},
 * {@code error}, {@code lost}), and bounded to {@value #LIMIT} entries, the oldest
 * dropped first.
 */
public class RecentLockFailures implements LockListener {

	/** Most entries kept. */
	public static final int LIMIT = 100;

	private final Clock clock;

	private final Map<String, Failure> failures = new ConcurrentHashMap<>();

	/**
	 * Keep failures, timed by the system clock.
	 */
	public RecentLockFailures() {
		this(Clock.systemUTC());
	}

	/**
	 * Keep failures, timed by {@code clock}.
	 * @param clock the clock that times them
	 */
	public RecentLockFailures(Clock clock) {
		Assert.notNull(clock, "'clock' must not be null");
		this.clock = clock;
	}

	@Override
	public void onNotAcquired(LockRequest request, Duration waited, Throwable failure) {
		if (failure instanceof LockNotAcquiredException && request.skipping()) {
			return; // a skipped call (another instance runs the tick), not a failure
		}
		String outcome = (failure instanceof LockNotAcquiredException) ? LockMetrics.TIMEOUT
				: (failure instanceof QuorumUnavailableException) ? LockMetrics.QUORUM_UNAVAILABLE : LockMetrics.ERROR;
		record(request.label(), outcome, failure);
	}

	@Override
	public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
		record(request.label(), "lost", cause);
	}

	private void record(String lock, String outcome, Throwable failure) {
		String message = (failure != null && failure.getMessage() != null) ? failure.getMessage()
				: String.valueOf(failure);
		Instant now = this.clock.instant();
		this.failures.compute(lock + '\u0000' + outcome,
				(key, before) -> new Failure(lock, outcome, message, now, (before != null) ? before.count() + 1 : 1));
		if (this.failures.size() > LIMIT) {
			this.failures.values()
				.stream()
				.min(Comparator.comparing(Failure::at))
				.ifPresent((oldest) -> this.failures.remove(oldest.lock() + '\u0000' + oldest.outcome(), oldest));
		}
	}

	/**
	 * The kept failures, the most recent first.
	 * @return the failures
	 */
	public List<Failure> failures() {
		return this.failures.values().stream().sorted(Comparator.comparing(Failure::at).reversed()).toList();
	}

	/**
	 * The last failure of one lock and outcome.
	 *
	 * @param lock the lock's label, never an evaluated key
	 * @param outcome {@code timeout}, {@code quorum_unavailable}, {@code error} or
	 * {@code lost}
	 * @param message the full message: the key, the figures and each master's failure in
	 * its own words (never credentials)
	 * @param at when it happened
	 * @param count how many failures of this lock and outcome were seen since start-up
	 */
	public record Failure(String lock, String outcome, String message, Instant at, long count) {
	}

}
