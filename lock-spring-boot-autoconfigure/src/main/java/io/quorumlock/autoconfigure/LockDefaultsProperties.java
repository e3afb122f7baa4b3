package io.quorumlock.autoconfigure;

import java.time.Duration;

import io.quorumlock.redis.OnLeaseLost;

/**
 * The lock defaults of {@link QuorumLockProperties} ({@code quorumlock.lease},
 * {@code quorumlock.wait-at-most}, ...): what a lock that sets none of its own gets. A
 * superclass, so that the properties keep their names and their generated metadata.
 */
abstract class LockDefaultsProperties {

	/**
	 * Time to live of each grant, for locks that set none. Renewal, when on, extends it
	 * every lease/3.
	 */
	private Duration lease = Duration.ofSeconds(30);

	/**
	 * How long to wait for a lock, for locks that set no wait. Zero tries once.
	 */
	private Duration waitAtMost = Duration.ZERO;

	/**
	 * Whether a watchdog extends held leases every lease/3, for locks that do not turn it
	 * off.
	 */
	private boolean renew = true;

	/**
	 * Bound on renewal: a lease is not extended past this long after its grant. Empty
	 * means no bound.
	 */
	private Duration holdAtMost;

	/**
	 * Minimum hold: a lease released sooner after its grant keeps its keys until then
	 * (once per tick for scheduled jobs). Zero releases at once. Must not exceed the
	 * lease of a lock that does not renew.
	 */
	private Duration holdAtLeast = Duration.ZERO;

	/**
	 * What releasing a lease that was lost before its release does: 'throw' a
	 * LeaseLostException, or 'log' a warning.
	 */
	private OnLeaseLost onLeaseLost = OnLeaseLost.THROW;

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

	public boolean isRenew() {
		return this.renew;
	}

	public void setRenew(boolean renew) {
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

	public OnLeaseLost getOnLeaseLost() {
		return this.onLeaseLost;
	}

	public void setOnLeaseLost(OnLeaseLost onLeaseLost) {
		this.onLeaseLost = onLeaseLost;
	}

}
