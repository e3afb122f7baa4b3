package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;

import io.quorumlock.Lease;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;

/**
 * A caller's request on its way in: resolved ({@link RequestResolver}), re-entered within
 * the scope of a lease of the same keys on this thread ({@link Reentry}), or started as
 * an acquisition ({@link Acquirer}) whose lease is handed to the caller off the I/O
 * threads ({@link Handoff}, {@link CallerThreads}).
 */
final class Requests {

	private final RequestResolver resolver;

	private final Reentry reentry;

	private final Acquirer acquirer;

	private final Releaser releaser;

	private final CallerThreads threads;

	private final Pending pending;

	Requests(RequestResolver resolver, Reentry reentry, Acquirer acquirer, Releaser releaser, CallerThreads threads) {
		this.resolver = resolver;
		this.reentry = reentry;
		this.acquirer = acquirer;
		this.releaser = releaser;
		this.threads = threads;
		this.pending = acquirer.pending;
	}

	/** Start an acquisition, ended at once if the engine is or gets closed. */
	private CompletableFuture<RedisLease> start(ResolvedRequest resolved) {
		if (this.pending.isClosed()) {
			return CompletableFuture.failedFuture(Pending.closed(resolved));
		}
		CompletableFuture<RedisLease> result = this.acquirer.start(resolved);
		this.pending.track(result, resolved);
		return result;
	}

	CompletableFuture<Lease> acquireAsync(LockRequest request) {
		ResolvedRequest resolved;
		RedisLease held;
		try {
			resolved = this.resolver.resolve(request);
			held = this.reentry.heldInScope(resolved);
			if (held != null) {
				// called within the scope of a lease of these keys (an annotated method's
				// body, an execute action, a Lock view's hold): a re-entry, as when
				// blocking
				return CompletableFuture.completedFuture(this.reentry.reenter(held));
			}
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		// the caller's continuations run off the I/O thread that completes the grant; a
		// lease the caller can no longer receive is released at once
		CompletableFuture<RedisLease> result = start(resolved);
		return Handoff.view(this.releaser, result,
				this.threads.<Lease>handOver(result, (lease) -> this.releaser.releaseAsync((RedisLease) lease)));
	}

	/**
	 * Blocking acquisition shared by every blocking entry point; re-entrant within the
	 * scope of a lease of the same keys on this thread (see {@link Reentry}).
	 */
	Lease acquireBlocking(LockRequest request, boolean interruptible) {
		ResolvedRequest resolved = this.resolver.resolve(request);
		RedisLease held = this.reentry.heldInScope(resolved);
		if (held != null) {
			return this.reentry.reenter(held);
		}
		this.threads.checkMayBlock("acquire", resolved, "acquireAsync");
		CompletableFuture<RedisLease> future = start(resolved);
		if (!interruptible) {
			return Futures.await(future);
		}
		try {
			return Futures.awaitInterruptibly(future);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			Handoff.abandon(this.releaser, future); // a grant racing the interrupt
			throw new LockNotAcquiredException(
					resolved.describe() + ": not acquired, the waiting thread was interrupted");
		}
	}

	/**
	 * The lease held on every key of the request within whose scope this thread runs, or
	 * null if there is none.
	 */
	RedisLease heldInScope(LockRequest request) {
		return this.reentry.heldInScope(this.resolver.resolve(request));
	}

}
