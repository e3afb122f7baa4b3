package io.quorumlock.autoconfigure;

import java.time.Duration;

/**
 * Options of the locks with one name. Unset options fall back to the global ones.
 */
public final class Instance {

	/**
	 * Time to live of each grant. Empty means quorumlock.lease.
	 */
	private Duration lease;

	/**
	 * How long to wait for the lock; zero tries once. Empty means
	 * quorumlock.wait-at-most.
	 */
	private Duration waitAtMost;

	/**
	 * Whether a watchdog extends the lease every lease/3. Empty means quorumlock.renew.
	 */
	private Boolean renew;

	/**
	 * Bound on renewal after the grant. Empty means quorumlock.hold-at-most.
	 */
	private Duration holdAtMost;

	/**
	 * Minimum hold after the grant, kept even when released sooner. Empty means
	 * quorumlock.hold-at-least.
	 */
	private Duration holdAtLeast;

	public Duration getLease() {
		return this.lease;
	}

	public void setLease(Duration lease) {
		this.lease = lease;
	}

	public Duration getWaitAtMost() {
		return this.waitAtMost;
	}

	public void setWaitAtMost(Duration waitAtMost) {
		this.waitAtMost = waitAtMost;
	}

	public Boolean getRenew() {
		return this.renew;
	}

	public void setRenew(Boolean renew) {
		this.renew = renew;
	}

	public Duration getHoldAtMost() {
		return this.holdAtMost;
	}

	public void setHoldAtMost(Duration holdAtMost) {
		this.holdAtMost = holdAtMost;
	}

	public Duration getHoldAtLeast() {
		return this.holdAtLeast;
	}

	public void setHoldAtLeast(Duration holdAtLeast) {
		this.holdAtLeast = holdAtLeast;
	}

}
