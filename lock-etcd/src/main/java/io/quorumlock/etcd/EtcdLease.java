package io.quorumlock.etcd;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.RegistryStatus;

/**
 * A lease of an {@link EtcdLockRegistry}: the keys this hold wrote under one etcd lease
 * of its own, their create revisions (what every later write and the release compare),
 * and the fencing token (the revision at which the grant was decided).
 * <p>
 * Valid until the validity that the last answer confirmed runs out: the grant's, then
 * each keep-alive's, counted from the request's start. Only an answer ends it early: a
 * keep-alive answered with TTL 0 (etcd dropped the lease, and with it the keys). A
 * keep-alive that is not answered is sent again on the next pass; the lease is lost when
 * its validity runs out, never earlier.
 */
final class EtcdLease implements Lease, KeepAlives.Kept {

	private static final int HELD = 0;

	private static final int LOST = 1;

	private static final int RELEASED = 2;

	private static final int EXTENSION_ROUNDS = 3;

	private final EtcdLockRegistry registry;

	private final EtcdRequest request;

	private final List<ByteSequence> keys;

	private final long[] revisions;

	private final long token;

	private final long leaseNanos;

	private final long grantedAt;

	private final Instant heldSince;

	private final ByteSequence value;

	private final AtomicInteger state = new AtomicInteger(HELD);

	private final ReentrantLock extensions = new ReentrantLock();

	private volatile long leaseId;

	private volatile long validUntil;

	/** When renewal stops ({@code holdAtMost}); {@link Long#MAX_VALUE} for never. */
	private volatile long renewUntil;

	/** Until when a release keeps the keys ({@code holdAtLeast}). */
	private volatile long holdUntil;

	private volatile LeaseLostException lost;

	private volatile Thread owner;

	private volatile boolean renewing;

	private volatile long lastRenewal;

	private volatile long retryAt;

	private volatile String lastProblem;

	EtcdLease(EtcdLockRegistry registry, EtcdRequest request, List<ByteSequence> keys, long[] revisions, long token,
			long leaseId, long startedAt, long confirmedAt, ByteSequence value) {
		this.registry = registry;
		this.request = request;
		this.keys = List.copyOf(keys);
		this.revisions = revisions.clone();
		this.token = token;
		this.leaseId = leaseId;
		this.leaseNanos = request.lease().toNanos();
		this.grantedAt = System.nanoTime();
		this.heldSince = Instant.now();
		this.value = value;
		this.validUntil = registry.validity().validUntil(confirmedAt, this.leaseNanos);
		this.lastRenewal = confirmedAt;
		this.retryAt = confirmedAt;
		this.renewUntil = (request.renew() && request.holdAtMost() != null) ? startedAt + request.holdAtMost().toNanos()
				: Long.MAX_VALUE;
		this.holdUntil = startedAt + request.holdAtLeast().toNanos();
	}

	EtcdRequest request() {
		return this.request;
	}

	long leaseId() {
		return this.leaseId;
	}

	Thread owner() {
		return this.owner;
	}

	void owner(Thread owner) {
		this.owner = owner;
	}

	boolean unreleased() {
		return this.state.get() != RELEASED;
	}

	@Override
	public List<String> keys() {
		return this.request.request().keys();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * On etcd: the revision of the etcd transaction that decided the grant, read where no
	 * key of the lock older than this hold's remained (the create revision of the key
	 * when granted at once; the revision of the re-check's write after a wait). Revisions
	 * are one counter of the whole cluster, raised by every write, so tokens grow with
	 * each holder of a key and are comparable across keys, across leader changes and
	 * member restarts.
	 */
	@Override
	public long fencingToken() {
		if (this.request.shared() || this.request.permits() > 1) {
			throw new UnsupportedOperationException(this.request.describe() + ": a "
					+ (this.request.shared() ? "shared lease" : "lease of one of several permits")
					+ " has no fencing token: tokens order the holders of a key one after another, which "
					+ (this.request.shared() ? "shared holders" : "permit holders") + " are not");
		}
		if (!isValid()) {
			throw lostOrReleased();
		}
		return this.token;
	}

	@Override
	public Duration remaining() {
		long now = System.nanoTime();
		return (this.state.get() == HELD) ? Duration.ofNanos(Validity.remaining(this.validUntil, now)) : Duration.ZERO;
	}

	@Override
	public boolean isValid() {
		return this.state.get() == HELD && System.nanoTime() - this.validUntil < 0;
	}

	@Override
	public boolean extend(Duration lease) {
		String where = "extend() of " + this.request.describe() + ": ";
		if (lease == null || lease.isNegative() || lease.isZero()) {
			throw new IllegalArgumentException(where + "lease must be positive, was " + lease);
		}
		if (this.request.renew() && this.request.holdAtMost() == null) {
			throw new IllegalStateException(where + "the lease renews itself every lease/3 without holdAtMost "
					+ "(renew=true); extend() is for leases taken with renew(false) or with a holdAtMost");
		}
		if (this.request.renew() && lease.compareTo(this.request.lease()) < 0) {
			throw new IllegalArgumentException(where + "new holdAtMost " + lease.toMillis()
					+ " ms is shorter than lease " + this.request.lease().toMillis() + " ms");
		}
		this.registry.checkNotEventLoop("extend()", "extendAsync()");
		this.extensions.lock();
		try {
			return this.request.renew() ? extendRenewal(lease) : extendLease(lease);
		}
		finally {
			this.extensions.unlock();
		}
	}

	@Override
	public boolean extend(Duration lease, Duration holdAtLeast) {
		if (holdAtLeast == null || holdAtLeast.isNegative() || (lease != null && holdAtLeast.compareTo(lease) > 0)) {
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
	 * A renewing lease with holdAtMost: one keep-alive, then renewal runs to the new end.
	 */
	private boolean extendRenewal(Duration length) {
		for (int round = 0; round < EXTENSION_ROUNDS; round++) {
			if (!isValid()) {
				return false;
			}
			long sentAt = System.nanoTime();
			LeaseKeepAliveResponse answer;
			try {
				answer = this.registry.await(this.registry.calls().keepAlive(this.leaseId));
			}
			catch (RuntimeException ex) {
				this.lastProblem = EtcdCalls.describe(ex);
				continue;
			}
			if (answer.getTTL() <= 0) {
				lose("etcd answered that its etcd lease had expired");
				return false;
			}
			this.renewUntil = sentAt + length.toNanos();
			confirm(sentAt);
			return isValid();
		}
		lose("the extension was not answered in " + EXTENSION_ROUNDS + " rounds (" + this.lastProblem + ")");
		return false;
	}

	/**
	 * A lease that does not renew: its keys move, if they are still this hold's, to a new
	 * etcd lease of the new length; the old one is revoked.
	 */
	private boolean extendLease(Duration length) {
		EtcdCalls calls = this.registry.calls();
		long sentAt = System.nanoTime();
		if (!isValid()) {
			return false;
		}
		long newLease = 0;
		for (int round = 0; round < EXTENSION_ROUNDS && newLease == 0; round++) {
			try {
				newLease = this.registry.await(calls.grant(Validity.ttlSeconds(length))).getID();
			}
			catch (RuntimeException ex) {
				this.lastProblem = EtcdCalls.describe(ex);
			}
		}
		if (newLease == 0) {
			lose("the extension was not answered in " + EXTENSION_ROUNDS + " rounds (" + this.lastProblem + ")");
			return false;
		}
		for (int round = 0; round < EXTENSION_ROUNDS; round++) {
			TxnResponse moved;
			try {
				// sent again after an unknown outcome: the same compares and puts,
				// harmless twice
				moved = this.registry.await(calls.rehome(this.keys, this.revisions, this.value, newLease));
			}
			catch (RuntimeException ex) {
				this.lastProblem = EtcdCalls.describe(ex);
				continue;
			}
			if (!moved.isSucceeded()) {
				calls.revoke(newLease);
				lose("a key was gone when it was to be extended");
				return false;
			}
			long old = this.leaseId;
			this.leaseId = newLease;
			calls.revoke(old);
			if (this.state.get() != HELD) {
				calls.revoke(newLease);
				return false;
			}
			this.validUntil = this.registry.validity().validUntil(sentAt, length.toNanos());
			this.registry.listeners().renewed(this.request.request(), this);
			return isValid();
		}
		calls.revoke(newLease);
		lose("the extension was not answered in " + EXTENSION_ROUNDS + " rounds (" + this.lastProblem + ")");
		return false;
	}

	@Override
	public void pass(long now) {
		if (this.state.get() != HELD) {
			return;
		}
		if (now - this.validUntil >= 0) {
			lose(expiredWhy(now));
			return;
		}
		if (!this.request.renew() || this.renewing || now - this.renewUntil >= 0 || now - this.retryAt < 0
				|| now - this.lastRenewal < this.leaseNanos / 3) {
			return;
		}
		this.renewing = true;
		long sentAt = now;
		this.registry.calls().keepAlive(this.leaseId).whenComplete((answer, failure) -> {
			this.renewing = false;
			if (failure != null) {
				// unknown: asked again on a later pass; only the validity or an answer
				// ends the lease
				this.lastProblem = EtcdCalls.describe(failure);
				this.retryAt = System.nanoTime() + this.registry.retryDelayNanos();
				this.registry.listeners().nodeError(this.registry.address(), failure);
				return;
			}
			if (answer.getTTL() <= 0) {
				lose("etcd answered that its etcd lease had expired");
				return;
			}
			confirm(sentAt);
		});
	}

	/** An answer confirmed the lease at {@code sentAt}. */
	private void confirm(long sentAt) {
		this.lastRenewal = sentAt;
		long confirmed = this.registry.validity().validUntil(sentAt, this.leaseNanos);
		if (confirmed - this.validUntil > 0) {
			this.validUntil = confirmed;
		}
		if (this.state.get() == HELD) {
			this.registry.listeners().renewed(this.request.request(), this);
		}
	}

	private String expiredWhy(long now) {
		if (!this.request.renew()) {
			return "expired unrenewed after its lease of " + this.request.lease().toMillis() + " ms";
		}
		if (now - this.renewUntil >= 0) {
			return "expired after renewal stopped at holdAtMost " + this.request.holdAtMost().toMillis() + " ms";
		}
		return "no keep-alive was answered within its validity (lease " + this.request.lease().toMillis() + " ms"
				+ ((this.lastProblem != null) ? ", last: " + this.lastProblem : "") + ")";
	}

	/** Mark the lease lost, once: listeners hear of it, its etcd lease is revoked. */
	void lose(String why) {
		if (!this.state.compareAndSet(HELD, LOST)) {
			return;
		}
		this.lost = new LeaseLostException(this.request.describe() + ": lease lost, " + why);
		this.registry.keepAlives().remove(this);
		// nothing of it is to be trusted any more: let the next holder in as soon as etcd
		// hears from us (a revoke of this hold's own lease, harmless if it already
		// expired)
		this.registry.calls().revoke(this.leaseId);
		this.registry.listeners().lost(this.request.request(), this, this.lost);
	}

	/**
	 * The registry closes: its etcd lease is revoked there; a later release does nothing.
	 * @return the revoke
	 */
	CompletableFuture<Void> closeWithRegistry() {
		if (this.state.getAndSet(RELEASED) == RELEASED) {
			return CompletableFuture.completedFuture(null);
		}
		this.owner = null;
		return this.registry.calls().revoke(this.leaseId).exceptionally((ex) -> null);
	}

	@Override
	public void release() {
		this.registry.await(releaseAsync().toCompletableFuture());
	}

	@Override
	public CompletionStage<Void> releaseAsync() {
		int was = this.state.get();
		while (was != RELEASED && !this.state.compareAndSet(was, RELEASED)) {
			was = this.state.get();
		}
		if (was == RELEASED) {
			return CompletableFuture.completedFuture(null);
		}
		this.owner = null;
		this.registry.released(this);
		this.registry.keepAlives().remove(this);
		long now = System.nanoTime();
		LeaseLostException loss = this.lost;
		if (was == HELD && now - this.validUntil >= 0) {
			loss = new LeaseLostException(this.request.describe() + ": lease lost, " + expiredWhy(now));
			this.lost = loss;
			this.registry.listeners().lost(this.request.request(), this, loss);
		}
		EtcdCalls calls = this.registry.calls();
		CompletableFuture<?> done;
		if (was == HELD && loss == null && this.holdUntil - now > 0) {
			done = keepFor(this.holdUntil - now);
		}
		else if (was == HELD) {
			// compare-and-delete on the create revisions, sent once; and the hold's own
			// lease revoked, which no later holder's key is under
			done = CompletableFuture.allOf(calls.release(this.keys, this.revisions).exceptionally((ex) -> null),
					calls.revoke(this.leaseId).exceptionally((ex) -> null));
		}
		else {
			done = CompletableFuture.completedFuture(null);
		}
		LeaseLostException reported = loss;
		return done.handle((ignored, failure) -> {
			this.registry.listeners()
				.released(this.request.request(), this, Duration.ofNanos(System.nanoTime() - this.grantedAt));
			if (reported != null && this.registry.throwsOnLoss()) {
				throw reported;
			}
			return null;
		});
	}

	/**
	 * A release before the minimum hold: the keys move to a new etcd lease that lives for
	 * the remainder (rounded up to whole seconds), and this hold's lease is revoked.
	 */
	private CompletableFuture<?> keepFor(long remainingNanos) {
		EtcdCalls calls = this.registry.calls();
		long old = this.leaseId;
		return calls.grant(Validity.ttlSeconds(Duration.ofNanos(remainingNanos)))
			.thenCompose((granted) -> calls.rehome(this.keys, this.revisions, this.value, granted.getID())
				.thenCompose((moved) -> moved.isSucceeded() ? calls.revoke(old) : calls.revoke(granted.getID())))
			.exceptionally((ex) -> {
				// unknown: the keys stay under this hold's lease, which is no longer kept
				// alive and expires within its TTL
				return null;
			});
	}

	private LeaseLostException lostOrReleased() {
		LeaseLostException loss = this.lost;
		if (loss != null) {
			return loss;
		}
		long now = System.nanoTime();
		if (this.state.get() == HELD && now - this.validUntil >= 0) {
			return new LeaseLostException(this.request.describe() + ": lease lost, " + expiredWhy(now));
		}
		return new LeaseLostException(this.request.describe() + ": lease already released");
	}

	/** A hold on this lease for a re-entry, unless it no longer protects anything. */
	Lease reenter() {
		if (!isValid()) {
			throw new LeaseLostException(lostOrReleased().getMessage() + "; release it before locking again");
		}
		return new Hold(this);
	}

	RegistryStatus.HeldLease status() {
		return new RegistryStatus.HeldLease(this.request.request().label(), this.request.lockKeys(), this.heldSince,
				remaining(),
				(this.request.shared() || this.request.permits() > 1) ? OptionalLong.empty()
						: OptionalLong.of(this.token),
				1, this.request.shared() ? "shared" : (this.request.permits() > 1) ? "permit" : "exclusive",
				OptionalInt.empty());
	}

	@Override
	public String toString() {
		return "EtcdLease[" + this.request.describe() + ", token " + this.token + "]";
	}

	/** A re-entry: valid while the lease is; its release gives back only this hold. */
	static final class Hold implements Lease {

		private final EtcdLease lease;

		private volatile boolean released;

		Hold(EtcdLease lease) {
			this.lease = lease;
		}

		EtcdLease lease() {
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
