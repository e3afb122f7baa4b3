package io.quorumlock.redis;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * What the caller of an {@link Acquisition} holds: the lease once granted. Cancelling it
 * also ends the local-queue ticket or wake-up being waited on, so the acquisition notices
 * at once. An override rather than a completion callback, which every acquisition would
 * pay for.
 */
final class AcquisitionResult extends CompletableFuture<RedisLease> {

	/** Told when this result ends, so that closing the engine skips it. */
	private final Pending pending;

	/**
	 * The current local-queue ticket or wake-up, completed on cancellation to stop
	 * waiting.
	 */
	private volatile CompletableFuture<?> waitingOn;

	AcquisitionResult(Pending pending) {
		this.pending = pending;
	}

	@Override
	public boolean complete(RedisLease lease) {
		boolean completed = super.complete(lease);
		this.pending.ended(this);
		return completed;
	}

	@Override
	public boolean completeExceptionally(Throwable failure) {
		boolean completed = super.completeExceptionally(failure);
		this.pending.ended(this);
		// a wait in progress notices at once, and the acquisition undoes what it holds
		CompletableFuture<?> w = this.waitingOn;
		if (completed && w != null) {
			w.completeExceptionally(failure);
		}
		return completed;
	}

	/** The acquisition now waits on {@code ticketOrWakeUp}. */
	void waitOn(CompletableFuture<?> ticketOrWakeUp) {
		this.waitingOn = ticketOrWakeUp;
	}

	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		boolean cancelled = super.cancel(mayInterruptIfRunning);
		this.pending.ended(this);
		CompletableFuture<?> w = this.waitingOn;
		if (cancelled && w != null) {
			w.completeExceptionally(new CancellationException());
		}
		return cancelled;
	}

}
