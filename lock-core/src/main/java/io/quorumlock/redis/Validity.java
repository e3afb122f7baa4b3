package io.quorumlock.redis;

import java.time.Duration;

/**
 * Redlock's validity arithmetic, in {@code System.nanoTime()} units. A lease granted by
 * an attempt that started at {@code start} is valid until
 * {@code start + lease - (lease * driftFactor + 2 ms)}: the time spent acquiring is
 * subtracted by measuring from the start, and the drift allowance covers clocks of the
 * nodes running slightly fast against ours.
 */
final class Validity {

	/** Fixed part of the drift allowance (Redlock adds 2 ms for the PX resolution). */
	static final long DRIFT_FLOOR_NANOS = Duration.ofMillis(2).toNanos();

	private final double driftFactor;

	Validity(double driftFactor) {
		if (!(driftFactor >= 0 && driftFactor < 0.5)) {
			throw new IllegalArgumentException("clock drift factor must be in [0, 0.5), was " + driftFactor);
		}
		this.driftFactor = driftFactor;
	}

	/** Allowance for drift over a lease: lease * factor + 2 ms. */
	long driftNanos(long leaseNanos) {
		return (long) (leaseNanos * this.driftFactor) + DRIFT_FLOOR_NANOS;
	}

	/**
	 * The instant (nanoTime) until which a lease granted by an attempt started at start
	 * is valid.
	 */
	long validUntil(long startNanos, long leaseNanos) {
		return startNanos + leaseNanos - driftNanos(leaseNanos);
	}

	/** Validity left at {@code now}; zero or negative means none. */
	static long remaining(long validUntil, long now) {
		return validUntil - now;
	}

}
