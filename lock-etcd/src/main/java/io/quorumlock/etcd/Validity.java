package io.quorumlock.etcd;

import java.time.Duration;

/**
 * The timing math of a lease, without etcd: a lease confirmed by an answer to a request
 * sent at {@code sentAt} is valid until
 * {@code sentAt + lease - (lease * driftFactor + 2 ms)}. Counting from the request's
 * start covers the time the request took; the drift allowance covers the difference
 * between this client's clock rate and the etcd leader's, which times the lease out. etcd
 * keeps a lease for whole seconds (and at least its minimum TTL), never less than
 * {@link #ttlSeconds(Duration)}, so etcd never drops a key before the holder's validity
 * ends.
 */
final class Validity {

	/** Fixed part of the drift allowance. */
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

	/** Until when a lease confirmed by a request sent at {@code sentAt} is valid. */
	long validUntil(long sentAt, long leaseNanos) {
		return sentAt + leaseNanos - driftNanos(leaseNanos);
	}

	/**
	 * What is left at {@code now} of a validity ending at {@code validUntil}, at least 0.
	 */
	static long remaining(long validUntil, long now) {
		return Math.max(0, validUntil - now);
	}

	/** The etcd TTL of a lease: whole seconds, rounded up, at least 1. */
	static long ttlSeconds(Duration lease) {
		long seconds = lease.getSeconds() + ((lease.getNano() > 0) ? 1 : 0);
		return Math.max(1, seconds);
	}

}
