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

	/**
	 * The current local-queue ticket or wake-up, completed on cancellation to stop
	 * waiting.
	 */
	private volatile CompletableFuture<Void> waitingOn;

	/** The acquisition now waits on {@code ticketOrWakeUp}. */
	void waitOn(CompletableFuture<Void> ticketOrWakeUp) {
		this.waitingOn = ticketOrWakeUp;
	}

	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		boolean cancelled = super.cancel(mayInterruptIfRunning);
		CompletableFuture<Void> w = this.waitingOn;
		if (cancelled && w != null) {
			w.completeExceptionally(new CancellationException());
		}
		return cancelled;
	}

}
