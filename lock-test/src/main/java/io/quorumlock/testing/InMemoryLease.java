package io.quorumlock.testing;

import java.time.Duration;
import java.util.List;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;

/**
 * A lease of an {@link InMemoryLockRegistry}. Its validity is computed, not scheduled: a
 * lease that does not renew is valid for its lease after the grant; one that renews is
 * renewed, in effect, every lease/3 while it is held and, with {@code holdAtMost}, while
 * less than {@code holdAtMost} has passed since the grant, so it runs out a lease after
 * the last such renewal. {@link #extend(Duration)} moves the end of a lease that does not
 * renew to the new lease after the call, and the end of renewal of one that renews with
 * {@code holdAtMost} to the new length after the call.
 */
final class InMemoryLease implements Lease {

	private final InMemoryLockRegistry registry;

	private final InMemoryLocks locks;

	private final InMemoryLockRequest request;

	private final long token;

	private final long acquiredAt;

	/**
	 * When a lease that does not renew runs out: a lease after the grant, or after its
	 * last extension. Written under the locks' lock.
	 */
	private volatile long until;

	/**
	 * For a lease that renews with {@code holdAtMost}: when renewal stops, the grant plus
	 * {@code holdAtMost}, or an extension plus its length. Written under the locks' lock.
	 */
	private volatile long renewUntil;

	/** Set once, by the first release. */
	private volatile boolean released;

	/**
	 * Until when a release keeps the keys ({@code holdAtLeast}): the grant plus the
	 * minimum hold, or an extension plus its new one.
	 */
	private volatile long holdUntil;

	/** Whether a release came before {@link #holdUntil}: the keys stay until then. */
	private volatile boolean kept;

	/** The thread holding this lease through a Lock view, else null. */
	private volatile Thread owner;

	InMemoryLease(InMemoryLockRegistry registry, InMemoryLocks locks, InMemoryLockRequest request, long token,
			long acquiredAt) {
		this.registry = registry;
		this.locks = locks;
		this.request = request;
		this.token = token;
		this.acquiredAt = acquiredAt;
		this.until = acquiredAt + request.lease().toNanos();
		this.renewUntil = acquiredAt + request.holdAtMost().orElse(Duration.ZERO).toNanos();
		this.holdUntil = acquiredAt + request.holdAtLeast().toNanos();
	}

	@Override
	public List<String> keys() {
		return this.request.request().keys();
	}

	@Override
	public long fencingToken() {
		return this.token;
	}

	@Override
	public boolean extend(Duration lease) {
		String where = "extend() of " + this.request.describe() + ": ";
		if (lease == null || lease.isNegative() || lease.isZero()) {
			throw new IllegalArgumentException(where + "lease must be positive, was " + lease);
		}
		if (unbounded()) {
			throw new IllegalStateException(where + "the lease renews itself every lease/3 without holdAtMost "
					+ "(renew=true); extend() is for leases taken with renew(false) or with a holdAtMost");
		}
		if (this.request.renew() && lease.compareTo(this.request.lease()) < 0) {
			throw new IllegalArgumentException(where + "new holdAtMost " + lease.toMillis()
					+ " ms is shorter than lease " + this.request.lease().toMillis() + " ms");
		}
		return this.locks.extend(this, lease.toNanos());
	}

	/**
	 * {@inheritDoc} The new minimum hold counts from the call.
	 */
	@Override
	public boolean extend(Duration lease, Duration holdAtLeast) {
		if (holdAtLeast == null) {
			throw new IllegalArgumentException("holdAtLeast must not be null");
		}
		if (holdAtLeast.isNegative() || (lease != null && holdAtLeast.compareTo(lease) > 0)) {
			throw new IllegalArgumentException("extend() of " + this.request.describe() + ": holdAtLeast " + holdAtLeast
					+ " must be between zero and the lease " + lease);
		}
		long now = System.nanoTime();
		boolean extended = extend(lease);
		if (extended) {
			this.holdUntil = now + holdAtLeast.toNanos();
		}
		return extended;
	}

	/**
	 * Move the end of a lease that does not renew, or the end of renewal of one that
	 * renews with {@code holdAtMost}; the caller holds the locks' lock.
	 */
	void expireAt(long until) {
		if (this.request.renew()) {
			this.renewUntil = until;
		}
		else {
			this.until = until;
		}
	}

	@Override
	public Duration remaining() {
		long now = System.nanoTime();
		return holdsAt(now) ? Duration.ofNanos(expiry(now) - now) : Duration.ZERO;
	}

	@Override
	public boolean isValid() {
		return holdsAt(System.nanoTime());
	}

	@Override
	public void release() {
		if (this.released) {
			return;
		}
		long now = System.nanoTime();
		// a release before the minimum hold is over keeps the keys for the remainder
		this.kept = this.holdUntil - now > 0 && holdsAt(now);
		this.released = true;
		this.owner = null;
		this.locks.release(this);
		this.registry.released(this);
		if (!unbounded() && expiry(now) - now <= 0) {
			throw lost();
		}
	}

	@Override
	public String toString() {
		return "InMemoryLease[" + this.request.describe() + ", token " + this.token + "]";
	}

	/** Whether its keys are held at {@code now}: held, or released and kept. */
	boolean blocksAt(long now) {
		return holdsAt(now) || (this.kept && this.holdUntil - now > 0);
	}

	/** Until when it blocks its keys, as {@link #validUntil(long)}. */
	long blocksUntil(long now) {
		return holdsAt(now) ? validUntil(now) : this.holdUntil;
	}

	/** Whether a release keeps its keys for the minimum hold. */
	boolean kept() {
		return this.kept;
	}

	boolean holdsAt(long now) {
		return !this.released && (unbounded() || expiry(now) - now > 0);
	}

	/**
	 * When the lease stops holding unless released before ({@code Long.MAX_VALUE} for a
	 * lease that renews without bound).
	 */
	long validUntil(long now) {
		return unbounded() ? Long.MAX_VALUE : expiry(now);
	}

	private boolean unbounded() {
		return this.request.renew() && this.request.holdAtMost().isEmpty();
	}

	/** The end of the current grant: the last renewal due by now, plus a lease. */
	private long expiry(long now) {
		long lease = this.request.lease().toNanos();
		if (!this.request.renew()) {
			return this.until;
		}
		long step = Math.max(1, lease / 3);
		long renewals = Math.max(0, now - this.acquiredAt) / step;
		if (this.request.holdAtMost().isPresent()) {
			long hold = this.renewUntil - this.acquiredAt;
			// k * step < hold
			renewals = Math.min(renewals, (hold <= 0) ? 0 : (hold - 1) / step);
		}
		return this.acquiredAt + renewals * step + lease;
	}

	boolean sharesKeysWith(InMemoryLockRequest other) {
		return !this.released && other.lockKeys().stream().anyMatch(this.request.lockKeys()::contains);
	}

	boolean coversKeysOf(InMemoryLockRequest other) {
		return this.request.lockKeys().containsAll(other.lockKeys());
	}

	Thread owner() {
		return this.owner;
	}

	void owner(Thread owner) {
		this.owner = owner;
	}

	/** A hold on this lease for a re-entry, unless it no longer protects anything. */
	Lease reenter() {
		if (!isValid()) {
			throw new LeaseLostException(lost().getMessage() + "; release it before locking again");
		}
		return new Hold(this);
	}

	private LeaseLostException lost() {
		String why;
		if (!this.request.renew()) {
			why = "expired unrenewed after its lease of " + this.request.lease().toMillis() + " ms";
		}
		else {
			why = "expired after renewal stopped at holdAtMost " + this.request.holdAtMost().orElseThrow().toMillis()
					+ " ms";
		}
		return new LeaseLostException(this.request.describe() + ": lease lost, " + why);
	}

	/**
	 * A re-entry: valid while the lease is; its release gives back only this hold.
	 */
	static final class Hold implements Lease {

		private final InMemoryLease lease;

		private volatile boolean released;

		Hold(InMemoryLease lease) {
			this.lease = lease;
		}

		InMemoryLease lease() {
			return this.lease;
		}

		@Override
		public List<String> keys() {
			return this.lease.keys();
		}

		@Override
		public long fencingToken() {
			return this.lease.fencingToken();
		}

		@Override
		public boolean extend(Duration lease) {
			return this.lease.extend(lease);
		}

		@Override
		public boolean extend(Duration lease, Duration holdAtLeast) {
			return this.lease.extend(lease, holdAtLeast);
		}

		@Override
		public Duration remaining() {
			return this.released ? Duration.ZERO : this.lease.remaining();
		}

		@Override
		public boolean isValid() {
			return !this.released && this.lease.isValid();
		}

		@Override
		public void release() {
			this.released = true;
		}

		@Override
		public String toString() {
			return "Hold[" + this.lease + "]";
		}

	}

}
