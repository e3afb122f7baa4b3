package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;

import io.quorumlock.Lease;

/**
 * Hands a granted lease to its caller, or releases it when the caller can no longer
 * receive it: a lease that reaches nobody would be renewed by the watchdog and keep its
 * local gates until the JVM exits.
 */
final class Handoff {

	private Handoff() {
	}

	/**
	 * The caller's view of an acquisition, {@code handed} (the result handed over off the
	 * I/O threads). Whatever completes the view other than the grant itself
	 * ({@code orTimeout}, {@code completeOnTimeout}, {@code complete},
	 * {@code completeExceptionally}, {@code cancel}) stops the acquisition, and a lease
	 * granted anyway, before or after, is released at once. Invariant: a lease reaches
	 * the caller exactly when the view completed with that very lease.
	 */
	static CompletableFuture<Lease> view(Releaser releaser, CompletableFuture<RedisLease> result,
			CompletableFuture<Lease> handed) {
		handed.whenComplete((value, error) -> {
			RedisLease granted = result.isDone() && !result.isCompletedExceptionally() ? result.join() : null;
			if (value == null || value != granted) {
				abandon(releaser, result);
			}
		});
		return handed;
	}

	/**
	 * The caller is gone: stop the acquisition, and release what it grants if it wins the
	 * race with the cancellation (now or later).
	 */
	static void abandon(Releaser releaser, CompletableFuture<RedisLease> result) {
		result.cancel(false);
		result.thenAccept((lease) -> releaser.releaseAsync(lease).exceptionally((error) -> null));
	}

}
