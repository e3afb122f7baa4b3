package io.quorumlock.redis;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.netty.util.Timeout;
import io.quorumlock.LeaseLostException;
import io.quorumlock.Lease;
import io.quorumlock.redis.node.Replies;
import java.util.OptionalLong;

/**
 * A lease granted by {@link QuorumLockEngine}: the tokens that own its keys on the nodes
 * (each key's own, from the round that won it) and the instant until which the grant is
 * valid.
 */
final class RedisLease implements Lease {

	// Field handles rather than atomic objects: fewer allocations per lease.
	private static final VarHandle END;

	private static final VarHandle FENCING;

	private static final VarHandle EXTENSION;

	private static final VarHandle WATCH_ARMS;

	private static final VarHandle GATES_LEFT;

	private static final VarHandle WHEN_LOST;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			END = lookup.findVarHandle(RedisLease.class, "end", Object.class);
			FENCING = lookup.findVarHandle(RedisLease.class, "fencing", CompletableFuture.class);
			EXTENSION = lookup.findVarHandle(RedisLease.class, "extension", CompletableFuture.class);
			WATCH_ARMS = lookup.findVarHandle(RedisLease.class, "watchArms", int.class);
			GATES_LEFT = lookup.findVarHandle(RedisLease.class, "gatesLeft", boolean.class);
			WHEN_LOST = lookup.findVarHandle(RedisLease.class, "whenLost", CompletableFuture.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final Leases leases;

	private final ResolvedRequest request;

	/** Per key, in the order of the request's Redis keys, the token that holds it. */
	private final String[] tokens;

	private final long acquiredAt;

	/**
	 * How the lease ended, one state moved by compare-and-set through {@link #END}: null
	 * while live; its {@link LeaseLostException} once lost; {@link Released} once
	 * released (keeping the loss before it, if any). Lost only while live, released once:
	 * so a loss is never reported after the release, and a release sees every loss
	 * declared before it.
	 */
	private volatile Object end;

	/** Released, after the loss it holds (null if it was live). */
	private record Released(LeaseLostException loss) {
	}

	/** Released while live: one instance, no allocation per release. */
	private static final Released RELEASED_LIVE = new Released(null);

	/**
	 * Holds by its owner thread: 1 for the grant plus one per re-entry not yet released.
	 */
	private final AtomicInteger holds = new AtomicInteger(1);

	/** nanoTime until which the grant is valid, net of acquisition time and drift. */
	private volatile long validUntil;

	/**
	 * The longest lease its keys were ever set to (the request's, or a longer
	 * {@link #extend}): how long a release must be redone for. Raised before each
	 * extension round is sent, never lowered.
	 */
	private volatile long longestLeaseNanos;

	/** nanoTime until which a release keeps the keys ({@code holdAtLeast}). */
	private volatile long holdUntil;

	/**
	 * nanoTime after which a lease renewed with {@code holdAtMost} starts no renewal: the
	 * grant plus {@code holdAtMost}, moved by an {@link #extend}.
	 */
	private volatile long renewUntil;

	/**
	 * The last extension asked for: each starts after the one before ({@link Extender}).
	 */
	private volatile CompletableFuture<Boolean> extension;

	/**
	 * The thread holding it through a {@link LockView}, for re-entry; null for any other
	 * lease and once released (from whichever thread).
	 */
	private volatile Thread owner;

	/**
	 * The pending renewal or expiry check, cancelled on release; null while the lease
	 * waits on a timer it shares with the leases renewed in the same round.
	 */
	private volatile Timeout watchdog;

	/**
	 * How many times the watchdog armed this lease: a timer shared by several leases
	 * ticks only those whose last arm it was (see {@link #watchdog}).
	 */
	private volatile int watchArms;

	/**
	 * Whether the lease has left the local gates of its keys: once, at its loss or its
	 * release, whichever comes first ({@link LocalGates}).
	 */
	private volatile boolean gatesLeft;

	/** The stage of {@link #whenLost()}, made when first asked for. */
	private volatile CompletableFuture<LeaseLostException> whenLost;

	/**
	 * The fencing token once asked for: in flight, done, or failed (and then retried).
	 */
	private volatile CompletableFuture<Long> fencing;

	RedisLease(Leases leases, ResolvedRequest request, String[] tokens, long acquiredAt, long validUntil) {
		this.leases = leases;
		this.request = request;
		this.tokens = tokens;
		this.acquiredAt = acquiredAt;
		this.validUntil = validUntil;
		this.longestLeaseNanos = request.lease().toNanos();
		this.holdUntil = acquiredAt + request.holdAtLeast().toNanos();
		this.renewUntil = acquiredAt + request.holdAtMost().orElse(Duration.ZERO).toNanos();
	}

	ResolvedRequest request() {
		return this.request;
	}

	/** The token that holds the request's Redis key at {@code index}. */
	String token(int index) {
		return this.tokens[index];
	}

	long acquiredAt() {
		return this.acquiredAt;
	}

	long validUntil() {
		return this.validUntil;
	}

	Thread owner() {
		return this.owner;
	}

	void owner(Thread owner) {
		this.owner = owner;
	}

	AtomicInteger holds() {
		return this.holds;
	}

	boolean isReleased() {
		return this.end instanceof Released;
	}

	/** Extend the validity; it only ever moves forward. */
	void extendTo(long validUntil) {
		if (validUntil - this.validUntil > 0) {
			this.validUntil = validUntil;
		}
	}

	/**
	 * Set the validity an {@link Extender} round granted, which may be shorter than the
	 * one before (a shorter lease), and the minimum hold's end.
	 */
	void extended(long validUntil, long holdUntil) {
		this.holdUntil = holdUntil;
		this.validUntil = validUntil;
	}

	long holdUntil() {
		return this.holdUntil;
	}

	/** Meaningful for a lease with {@code holdAtMost} only. */
	long renewUntil() {
		return this.renewUntil;
	}

	/** Move the end of renewal, after an {@link Extender} round of a renewing lease. */
	void renewUntil(long renewUntil) {
		this.renewUntil = renewUntil;
	}

	long longestLeaseNanos() {
		return this.longestLeaseNanos;
	}

	/**
	 * Raise {@link #longestLeaseNanos()} before keys may be set to {@code leaseNanos}.
	 */
	void mayLastFor(long leaseNanos) {
		// only extension rounds write it, one at a time (Extender queues them)
		if (leaseNanos > this.longestLeaseNanos) {
			this.longestLeaseNanos = leaseNanos;
		}
	}

	/**
	 * Put {@code next} last in line for extension; returns the one before it, or null.
	 */
	@SuppressWarnings("unchecked")
	CompletableFuture<Boolean> queueExtension(CompletableFuture<Boolean> next) {
		return (CompletableFuture<Boolean>) EXTENSION.getAndSet(this, next);
	}

	/** The loss declared before the release, if any; never cleared. */
	LeaseLostException lost() {
		Object e = this.end;
		return (e instanceof Released r) ? r.loss() : (LeaseLostException) e;
	}

	/** Mark lost; true only for the first loss of a lease not yet released. */
	boolean markLost(LeaseLostException loss) {
		return END.compareAndSet(this, null, loss);
	}

	/**
	 * The lease's next renewal or expiry check is {@code task}, or, if null, a timer
	 * shared with other leases, which must tick this one only if no later arm came.
	 * @return this arm's number, for a shared timer to compare with {@link #watchArms()}
	 */
	int watchdog(Timeout task) {
		this.watchdog = task;
		return (int) WATCH_ARMS.getAndAdd(this, 1) + 1;
	}

	/** The number of the watchdog's last arm of this lease. */
	int watchArms() {
		return this.watchArms;
	}

	void cancelWatchdog() {
		Timeout task = this.watchdog;
		if (task != null) {
			task.cancel();
		}
	}

	/** The fencing token if it was computed successfully. */
	OptionalLong knownFencingToken() {
		CompletableFuture<Long> token = this.fencing;
		return (token != null && token.isDone() && !token.isCompletedExceptionally()) ? OptionalLong.of(token.join())
				: OptionalLong.empty();
	}

	/** The fencing token's computation: the one in flight or done, else a new one. */
	CompletableFuture<Long> fencing(Supplier<CompletableFuture<Long>> compute) {
		while (true) {
			CompletableFuture<Long> current = this.fencing;
			if (current != null && !current.isCompletedExceptionally()) {
				return current;
			}
			CompletableFuture<Long> mine = new CompletableFuture<>();
			if (FENCING.compareAndSet(this, current, mine)) {
				compute.get().whenComplete((token, error) -> {
					if (error != null) {
						mine.completeExceptionally(Replies.unwrap(error));
					}
					else {
						mine.complete(token);
					}
				});
				return mine;
			}
		}
	}

	/**
	 * The lease was just marked lost: complete {@link #whenLost()} if it was asked for.
	 */
	void lostNow(LeaseLostException loss) {
		CompletableFuture<LeaseLostException> stage = this.whenLost;
		if (stage != null) {
			stage.complete(loss);
		}
	}

	@Override
	public CompletionStage<LeaseLostException> whenLost() {
		CompletableFuture<LeaseLostException> stage = this.whenLost;
		if (stage == null) {
			CompletableFuture<LeaseLostException> mine = new CompletableFuture<>();
			stage = WHEN_LOST.compareAndSet(this, null, mine) ? mine : this.whenLost;
		}
		// a loss marked before the stage was made
		LeaseLostException loss = lost();
		if (loss != null) {
			stage.complete(loss);
		}
		// a stage of the caller's own: cancelling or completing it leaves the lease's as
		// it is
		return stage.thenApply((lost) -> lost);
	}

	/** Mark the local gates left; true only for the first caller. */
	boolean leaveGates() {
		return GATES_LEFT.compareAndSet(this, false, true);
	}

	/** Mark released; true only for the first caller. */
	boolean markReleased() {
		while (true) {
			Object e = this.end;
			if (e instanceof Released) {
				return false;
			}
			Released released = (e == null) ? RELEASED_LIVE : new Released((LeaseLostException) e);
			if (END.compareAndSet(this, e, released)) {
				return true;
			}
		}
	}

	@Override
	public List<String> keys() {
		return this.request.request().keys();
	}

	@Override
	public long fencingToken() {
		return this.leases.fencingToken(this);
	}

	@Override
	public CompletableFuture<Long> fencingTokenAsync() {
		return this.leases.fencingTokenAsync(this);
	}

	@Override
	public boolean extend(Duration lease) {
		return this.leases.extend(this, lease, null);
	}

	@Override
	public boolean extend(Duration lease, Duration holdAtLeast) {
		return this.leases.extend(this, lease, Extender.checkHold(holdAtLeast));
	}

	@Override
	public CompletableFuture<Boolean> extendAsync(Duration lease) {
		return this.leases.extendAsync(this, lease);
	}

	@Override
	public Duration remaining() {
		if (this.end != null) {
			return Duration.ZERO;
		}
		long left = Validity.remaining(this.validUntil, this.leases.nanoTime());
		return (left > 0) ? Duration.ofNanos(left) : Duration.ZERO;
	}

	@Override
	public boolean isValid() {
		return this.end == null && Validity.remaining(this.validUntil, this.leases.nanoTime()) > 0;
	}

	@Override
	public void checkValid() {
		if (isValid()) {
			return;
		}
		LeaseLostException loss = lost();
		String why = (loss != null) ? loss.getMessage()
				: isReleased() ? this.request.describe() + ": lease already released"
						: this.request.describe() + ": lease lost, " + LeaseWatchdog.expired(this.request);
		LeaseLostException thrown = new LeaseLostException(why, false);
		if (loss != null) {
			thrown.initCause(loss);
		}
		throw thrown;
	}

	@Override
	public void release() {
		this.leases.release(this);
	}

	@Override
	public CompletionStage<Void> releaseAsync() {
		return this.leases.releaseForCaller(this);
	}

	@Override
	public String toString() {
		return "Lease[" + this.request.describe() + ", valid=" + isValid() + "]";
	}

}
