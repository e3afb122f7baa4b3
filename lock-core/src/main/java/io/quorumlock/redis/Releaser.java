package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import io.quorumlock.LeaseLostException;
import io.quorumlock.redis.node.Timers;

/**
 * Ends a lease: compare-and-delete of its keys on every node in parallel (or, within
 * {@code holdAtLeast}, a compare-and-expire to the remainder), then its local gates go to
 * the next waiter and the listeners hear of it. The keys are deleted where this token
 * still holds them, and nothing else is; a lease found lost or expired is reported as the
 * policy says.
 */
final class Releaser {

	private final Voters voters;

	private final LocalGates gates;

	private final Listeners listener;

	private final Timers timers;

	private final CallerThreads threads;

	private final Losses losses;

	private final OnLeaseLost onLeaseLost;

	Releaser(Voters voters, LocalGates gates, Listeners listener, Timers timers, CallerThreads threads, Losses losses,
			OnLeaseLost onLeaseLost) {
		this.voters = voters;
		this.gates = gates;
		this.listener = listener;
		this.timers = timers;
		this.threads = threads;
		this.losses = losses;
		this.onLeaseLost = onLeaseLost;
	}

	/**
	 * Release a lease, waiting for the nodes unless called on an I/O or engine thread
	 * (where waiting could stall the very thread that completes the release).
	 */
	void release(RedisLease lease) {
		CompletableFuture<Void> released = releaseAsync(lease);
		if (this.threads.isEngineThread(Thread.currentThread())) {
			return;
		}
		try {
			released.join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
	}

	/** {@link #releaseAsync} for a caller, whose continuations must not run on I/O. */
	CompletableFuture<Void> releaseForCaller(RedisLease lease) {
		return this.threads.handOver(releaseAsync(lease));
	}

	/**
	 * Release without blocking. Completes when the nodes answered or timed out;
	 * exceptionally with the {@link LeaseLostException} if the lease had been lost and
	 * the policy is to throw.
	 */
	CompletableFuture<Void> releaseAsync(RedisLease lease) {
		if (lease.isReleased()) {
			return CompletableFuture.completedFuture(null);
		}
		long now = this.timers.nanoTime();
		LeaseLostException lost = lease.lost();
		if (lost == null && Validity.remaining(lease.validUntil(), now) <= 0) {
			lost = this.losses.lose(lease,
					LeaseWatchdog.expired(lease.request()) + ", "
							+ TimeUnit.NANOSECONDS.toMillis(now - lease.validUntil()) + " ms before its release",
					lease.request().renew());
		}
		if (!lease.markReleased()) {
			return CompletableFuture.completedFuture(null);
		}
		// every loss declared before the release, by this thread or the watchdog's; none
		// can be declared after it
		lost = lease.lost();
		lease.owner(null); // a Lock view's hold ends here, whichever thread releases
		lease.cancelWatchdog();
		List<String> keys = lease.request().redisKeys();
		long leaseNanos = lease.longestLeaseNanos(); // a redo must cover an extension
		long keepMillis = (lost == null) ? MinimumHold.remainderMillis(lease, now) : 0;
		Voters voters = this.voters.of(lease.request());
		CompletableFuture<?> done;
		if (keys.size() == 1) {
			done = end(voters, keys.get(0), lease.token(0), keepMillis, leaseNanos);
		}
		else {
			CompletableFuture<?>[] rounds = new CompletableFuture<?>[keys.size()];
			for (int i = 0; i < rounds.length; i++) {
				rounds[i] = end(voters, keys.get(i), lease.token(i), keepMillis, leaseNanos);
			}
			done = CompletableFuture.allOf(rounds);
		}
		Release released = new Release(lease, lost);
		done.whenComplete(released);
		return released;
	}

	/**
	 * A release in progress, completed once its rounds are done, the local gates passed
	 * on and the listeners told; one object for the future and its callback.
	 */
	private final class Release extends CompletableFuture<Void> implements BiConsumer<Object, Throwable> {

		private final RedisLease lease;

		private final LeaseLostException loss;

		Release(RedisLease lease, LeaseLostException loss) {
			this.lease = lease;
			this.loss = loss;
		}

		/** The rounds are done. */
		@Override
		public void accept(Object ok, Throwable error) {
			RedisLease lease = this.lease;
			Releaser.this.gates.of(lease.request()).released(lease);
			if (Releaser.this.listener.isEmpty()) {
				settle(); // no event to build
				return;
			}
			// the listeners hear of the release before the releasing caller returns
			Releaser.this.listener.onReleased(lease.request().request(), lease,
					Duration.ofNanos(Releaser.this.timers.nanoTime() - lease.acquiredAt()), this::settle);
		}

		private void settle() {
			if (this.loss != null && Releaser.this.onLeaseLost == OnLeaseLost.THROW) {
				completeExceptionally(this.loss);
			}
			else {
				complete(null);
			}
		}

	}

	/**
	 * End a lease's hold on a key: delete it, or, while {@code holdAtLeast} has
	 * {@code keepMillis} left, let it expire then without waking anyone.
	 */
	private static CompletableFuture<Round.Tally> end(Voters voters, String key, String token, long keepMillis,
			long leaseNanos) {
		return (keepMillis > 0) ? voters.keep(key, token, keepMillis, leaseNanos)
				: voters.release(key, token, leaseNanos);
	}

}
