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
 * the last such renewal.
 */
final class InMemoryLease implements Lease {

	private final InMemoryLockRegistry registry;

	private final InMemoryLocks locks;

	private final InMemoryLockRequest request;

	private final long token;

	private final long acquiredAt;

	/** Set once, by the first release. */
	private volatile boolean released;

	/** The thread holding this lease through a Lock view, else null. */
	private volatile Thread owner;

	InMemoryLease(InMemoryLockRegistry registry, InMemoryLocks locks, InMemoryLockRequest request, long token,
			long acquiredAt) {
		this.registry = registry;
		this.locks = locks;
		this.request = request;
		this.token = token;
		this.acquiredAt = acquiredAt;
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
		this.released = true;
		this.owner = null;
		long now = System.nanoTime();
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
			return this.acquiredAt + lease;
		}
		long step = Math.max(1, lease / 3);
		long renewals = Math.max(0, now - this.acquiredAt) / step;
		if (this.request.holdAtMost().isPresent()) {
			long hold = this.request.holdAtMost().get().toNanos();
			renewals = Math.min(renewals, (hold <= 0) ? 0 : (hold - 1) / step); // k *
																				// step <
																				// hold
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
