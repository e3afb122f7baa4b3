package io.quorumlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Timing options of a lock, each optional: an absent option falls back to the per-name
 * instance options, then to the registry's defaults. Immutable; every {@code with} method
 * returns a new instance and refuses a bad value with a message that quotes it.
 */
public final class LockOptions {

	private static final LockOptions NONE = new LockOptions(null, null, null, null, null);

	private final Duration lease;

	private final Duration waitAtMost;

	private final Boolean renew;

	private final Duration holdAtMost;

	private final Duration holdAtLeast;

	private LockOptions(Duration lease, Duration waitAtMost, Boolean renew, Duration holdAtMost, Duration holdAtLeast) {
		this.lease = lease;
		this.waitAtMost = waitAtMost;
		this.renew = renew;
		this.holdAtMost = holdAtMost;
		this.holdAtLeast = holdAtLeast;
	}

	/**
	 * Options with nothing set.
	 * @return the empty options
	 */
	public static LockOptions none() {
		return NONE;
	}

	/**
	 * Return a copy with the given lease (time to live of each grant).
	 * @param lease a positive duration
	 * @return a new instance
	 */
	public LockOptions lease(Duration lease) {
		Objects.requireNonNull(lease, "'lease' must not be null");
		if (lease.isNegative() || lease.isZero()) {
			throw new IllegalArgumentException("lease must be positive, was " + lease);
		}
		return new LockOptions(lease, this.waitAtMost, this.renew, this.holdAtMost, this.holdAtLeast);
	}

	/**
	 * Return a copy with the given maximum wait; zero means try once.
	 * @param waitAtMost a duration of zero or more
	 * @return a new instance
	 */
	public LockOptions waitAtMost(Duration waitAtMost) {
		Objects.requireNonNull(waitAtMost, "'waitAtMost' must not be null");
		if (waitAtMost.isNegative()) {
			throw new IllegalArgumentException("waitAtMost must not be negative, was " + waitAtMost);
		}
		return new LockOptions(this.lease, waitAtMost, this.renew, this.holdAtMost, this.holdAtLeast);
	}

	/**
	 * Return a copy that does or does not renew the lease while it is held.
	 * @param renew whether to renew
	 * @return a new instance
	 */
	public LockOptions renew(boolean renew) {
		return new LockOptions(this.lease, this.waitAtMost, renew, this.holdAtMost, this.holdAtLeast);
	}

	/**
	 * Return a copy that stops renewing after the given time.
	 * @param holdAtMost a positive duration, not shorter than the lease
	 * @return a new instance
	 */
	public LockOptions holdAtMost(Duration holdAtMost) {
		Objects.requireNonNull(holdAtMost, "'holdAtMost' must not be null");
		if (holdAtMost.isNegative() || holdAtMost.isZero()) {
			throw new IllegalArgumentException("holdAtMost must be positive, was " + holdAtMost);
		}
		return new LockOptions(this.lease, this.waitAtMost, this.renew, holdAtMost, this.holdAtLeast);
	}

	/**
	 * Return a copy that keeps the lock until this long after its acquisition began, even
	 * when it is released earlier: the key then stays on the nodes for the remainder, so
	 * that a {@code @Scheduled} job whose instances fire a little apart runs once per
	 * tick. Zero releases at once (the default). It must not be longer than the lease
	 * unless the lock renews.
	 * @param holdAtLeast a duration of zero or more
	 * @return a new instance
	 */
	public LockOptions holdAtLeast(Duration holdAtLeast) {
		Objects.requireNonNull(holdAtLeast, "'holdAtLeast' must not be null");
		if (holdAtLeast.isNegative()) {
			throw new IllegalArgumentException("holdAtLeast must not be negative, was " + holdAtLeast);
		}
		return new LockOptions(this.lease, this.waitAtMost, this.renew, this.holdAtMost, holdAtLeast);
	}

	/**
	 * Lease set on these options.
	 * @return the lease, if set
	 */
	public Optional<Duration> lease() {
		return Optional.ofNullable(this.lease);
	}

	/**
	 * Maximum wait set on these options.
	 * @return the wait, if set
	 */
	public Optional<Duration> waitAtMost() {
		return Optional.ofNullable(this.waitAtMost);
	}

	/**
	 * Renewal flag set on these options.
	 * @return whether to renew, if set
	 */
	public Optional<Boolean> renew() {
		return Optional.ofNullable(this.renew);
	}

	/**
	 * Bound on renewal set on these options.
	 * @return the bound, if set
	 */
	public Optional<Duration> holdAtMost() {
		return Optional.ofNullable(this.holdAtMost);
	}

	/**
	 * Minimum hold set on these options.
	 * @return the minimum hold, if set
	 */
	public Optional<Duration> holdAtLeast() {
		return Optional.ofNullable(this.holdAtLeast);
	}

	// the options as they are, for the checks of every request (no Optional each)

	Duration leaseOrNull() {
		return this.lease;
	}

	Boolean renewOrNull() {
		return this.renew;
	}

	Duration holdAtMostOrNull() {
		return this.holdAtMost;
	}

	Duration holdAtLeastOrNull() {
		return this.holdAtLeast;
	}

	/**
	 * Fill every option not set here from {@code fallback}.
	 * @param fallback the options to fall back to
	 * @return the merged options
	 */
	public LockOptions orElse(LockOptions fallback) {
		// on every request: no copy when one side already is the merge
		if (fallback == NONE || covers(this, fallback)) {
			return this;
		}
		if (this == NONE) {
			return fallback;
		}
		return new LockOptions((this.lease != null) ? this.lease : fallback.lease,
				(this.waitAtMost != null) ? this.waitAtMost : fallback.waitAtMost,
				(this.renew != null) ? this.renew : fallback.renew,
				(this.holdAtMost != null) ? this.holdAtMost : fallback.holdAtMost,
				(this.holdAtLeast != null) ? this.holdAtLeast : fallback.holdAtLeast);
	}

	/** Whether {@code options} sets everything {@code fallback} sets. */
	private static boolean covers(LockOptions options, LockOptions fallback) {
		return (options.lease != null || fallback.lease == null)
				&& (options.waitAtMost != null || fallback.waitAtMost == null)
				&& (options.renew != null || fallback.renew == null)
				&& (options.holdAtMost != null || fallback.holdAtMost == null)
				&& (options.holdAtLeast != null || fallback.holdAtLeast == null);
	}

	@Override
	public boolean equals(Object other) {
		return (other instanceof LockOptions that) && Objects.equals(this.lease, that.lease)
				&& Objects.equals(this.waitAtMost, that.waitAtMost) && Objects.equals(this.renew, that.renew)
				&& Objects.equals(this.holdAtMost, that.holdAtMost)
				&& Objects.equals(this.holdAtLeast, that.holdAtLeast);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.lease, this.waitAtMost, this.renew, this.holdAtMost, this.holdAtLeast);
	}

	@Override
	public String toString() {
		return "LockOptions[lease=" + this.lease + ", waitAtMost=" + this.waitAtMost + ", renew=" + this.renew
				+ ", holdAtMost=" + this.holdAtMost + ", holdAtLeast=" + this.holdAtLeast + "]";
	}

}
