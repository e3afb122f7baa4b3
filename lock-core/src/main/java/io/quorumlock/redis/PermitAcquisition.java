package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.quorumlock.LockException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.redis.node.Replies;

/**
 * The acquisition of one of k permits ({@code permits = k}, k &ge; 2). Not a counter per
 * node: with a quorum that is unsafe (3 nodes, quorum 2, k = 2: holders on {A,B}, {B,C}
 * and {A,C} leave every node at 2 while 3 hold). A semaphore of k permits is k exclusive
 * slot locks of the key ({@code <lock key>:permit:<i>}, same hash slot), each an ordinary
 * exclusive {@link Acquisition} with today's scripts, and a holder owns one slot; so at
 * most k hold at once by the exclusive lock's own argument, slot by slot.
 * <p>
 * A pass tries every slot once, without waiting on any, starting at a random one (so that
 * callers do not all pile onto slot 0); a slot held by another thread of this JVM is
 * skipped without a round (its local gate is taken). If no slot is free and the wait
 * allows, it subscribes to the key's release channel (every slot's release publishes
 * there, {@link LockKeys#channel}) and passes again when told, or after a jittered
 * back-off. Steps run one after another, never two at once for one acquisition.
 */
final class PermitAcquisition {

	private final Acquirer parts;

	/** The slot acquisitions' parts: those of the engine, with silent listeners. */
	private final Acquirer slots;

	private final ResolvedRequest request;

	private final int permits;

	private final String channel;

	private final long startedAt;

	private final long deadline;

	final CompletableFuture<RedisLease> result = new Result();

	private boolean subscribed;

	private int passes;

	/** The slot acquisition or wake-up in progress, ended on cancellation. */
	private volatile CompletableFuture<?> current;

	PermitAcquisition(Acquirer parts, Acquirer slots, ResolvedRequest request, long startedAt) {
		this.parts = parts;
		this.slots = slots;
		this.request = request;
		this.permits = request.request().permits();
		this.channel = LockKeys.channel(request.redisKeys().get(0));
		this.startedAt = startedAt;
		this.deadline = startedAt + request.waitAtMost().toNanos();
	}

	private final class Result extends CompletableFuture<RedisLease> {

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			boolean cancelled = super.cancel(mayInterruptIfRunning);
			CompletableFuture<?> c = PermitAcquisition.this.current;
			if (cancelled && c != null) {
				c.cancel(false);
			}
			return cancelled;
		}

	}

	CompletableFuture<RedisLease> start() {
		pass();
		return this.result;
	}

	/** Try every slot once, from a random one. */
	private void pass() {
		this.passes++;
		trySlot(this.parts.timers.nextInt(this.permits), 0);
	}

	private void trySlot(int slot, int tried) {
		if (this.result.isDone()) {
			finish(null);
			return;
		}
		String slotKey = LockKeys.permitKey(this.request.redisKeys().get(0), slot);
		ResolvedRequest one = new ResolvedRequest(this.request.request(), List.of(slotKey), this.request.lease(),
				Duration.ZERO, this.request.renew(), this.request.holdAtMost(), this.request.holdAtLeast());
		CompletableFuture<RedisLease> attempt = this.slots.startSlot(one);
		this.current = attempt;
		attempt.whenComplete((lease, error) -> {
			if (error == null) {
				granted(lease);
				return;
			}
			Throwable cause = Replies.unwrap(error);
			if (tried + 1 < this.permits && !this.result.isDone()) {
				trySlot((slot + 1) % this.permits, tried + 1);
			}
			else {
				allHeld(cause);
			}
		});
	}

	private void granted(RedisLease lease) {
		this.parts.listener.onAcquired(this.request.request(), lease, elapsed(), () -> {
			if (!this.result.complete(lease)) {
				this.parts.releaser.releaseAsync(lease); // the caller gave up meanwhile
			}
			stopListening();
		});
	}

	/** No slot was free in this pass: wait for a release, or fail. */
	private void allHeld(Throwable last) {
		long now = this.parts.timers.nanoTime();
		if (this.result.isDone()) {
			finish(null);
			return;
		}
		if (now - this.deadline >= 0) {
			finish(failure(last, now));
			return;
		}
		if (!this.subscribed) {
			// subscribe, then pass again at once: a release in between is not missed
			this.subscribed = true;
			CompletableFuture<Void> confirmed = this.parts.signals.subscribe(this.channel);
			Future<?> timer = this.parts.timers.schedule(() -> confirmed.complete(null), this.parts.nodeTimeoutNanos);
			confirmed.whenComplete((ok, error) -> {
				timer.cancel(false);
				this.parts.timers.execute(this::pass);
			});
			return;
		}
		CompletableFuture<String> wake = this.parts.signals.expect(this.channel, null);
		long delay = Math.min(this.parts.timers.retryDelayNanos(), this.deadline - now);
		Future<?> timer = this.parts.timers.schedule(() -> wake.complete(null), Math.max(0, delay));
		this.current = wake;
		wake.whenComplete((ok, error) -> {
			timer.cancel(false);
			this.parts.timers.execute(this::pass);
		});
	}

	private LockException failure(Throwable last, long now) {
		String figures = ": not acquired, all " + this.permits + " permits held, "
				+ TimeUnit.NANOSECONDS.toMillis(now - this.startedAt) + " ms elapsed, waited at most "
				+ this.request.waitAtMost().toMillis() + " ms, " + this.passes
				+ ((this.passes == 1) ? " pass" : " passes") + " over the slots";
		if (last instanceof QuorumUnavailableException) {
			return new QuorumUnavailableException(
					this.request.describe() + ": quorum unavailable for the last slot tried: " + last.getMessage());
		}
		return new LockNotAcquiredException(
				this.request.describe() + figures + ((last != null) ? " (last slot: " + last.getMessage() + ")" : ""));
	}

	/** Fail with {@code failure}, or end quietly after a cancellation (null). */
	private void finish(LockException failure) {
		stopListening();
		if (failure == null || this.result.isDone()) {
			if (failure == null && !this.result.isDone()) {
				this.result.completeExceptionally(new CancellationException());
			}
			return;
		}
		this.parts.listener.onNotAcquired(this.request.request(), elapsed(), failure,
				() -> this.result.completeExceptionally(failure));
	}

	private void stopListening() {
		if (this.subscribed) {
			this.subscribed = false;
			this.parts.signals.unsubscribe(this.channel);
		}
	}

	private Duration elapsed() {
		return Duration.ofNanos(this.parts.timers.nanoTime() - this.startedAt);
	}

}
