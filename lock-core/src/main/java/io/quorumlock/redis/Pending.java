package io.quorumlock.redis;

import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.quorumlock.LockNotAcquiredException;

/**
 * The acquisitions not yet ended, so that closing the engine ends every one of them at
 * once (a blocking caller, an async one, a {@code Lock} view) instead of leaving them to
 * wait for timers and connections that are gone. An {@link AcquisitionResult} says by
 * itself when it ends, so tracking costs an acquisition one map entry and nothing more.
 */
final class Pending {

	private final ConcurrentHashMap<CompletableFuture<RedisLease>, Open> open = new ConcurrentHashMap<>();

	/** Orders the acquisitions, so that closing ends them in the order they began. */
	private final AtomicLong sequence = new AtomicLong();

	/** One acquisition in progress: its place in order and its request. */
	private record Open(long sequence, ResolvedRequest request) {
	}

	private volatile boolean closed;

	/**
	 * Track an acquisition until it ends; fail it at once if the engine is closed (now,
	 * or while it was being tracked).
	 */
	void track(CompletableFuture<RedisLease> result, ResolvedRequest request) {
		if (result.isDone()) {
			return;
		}
		this.open.put(result, new Open(this.sequence.incrementAndGet(), request));
		if (!(result instanceof AcquisitionResult)) {
			result.whenComplete((lease, error) -> ended(result));
		}
		if (result.isDone()) {
			ended(result);
		}
		else if (this.closed) {
			fail(result, request);
		}
	}

	/** An acquisition ended. */
	void ended(CompletableFuture<?> result) {
		this.open.remove(result);
	}

	/** Whether the engine is closed: new acquisitions fail at once. */
	boolean isClosed() {
		return this.closed;
	}

	/** The failure of an acquisition the engine's closing ended. */
	static LockNotAcquiredException closed(ResolvedRequest request) {
		return new LockNotAcquiredException(request.describe() + ": not acquired, the registry was closed");
	}

	/**
	 * Close: every acquisition in progress fails now, in the order they began (the same
	 * every time for the same history), and every later one at once.
	 */
	void close() {
		this.closed = true;
		this.open.entrySet()
			.stream()
			.sorted(Comparator.comparingLong((entry) -> entry.getValue().sequence()))
			.forEach((entry) -> fail(entry.getKey(), entry.getValue().request()));
	}

	private void fail(CompletableFuture<RedisLease> result, ResolvedRequest request) {
		result.completeExceptionally(closed(request));
	}

}
