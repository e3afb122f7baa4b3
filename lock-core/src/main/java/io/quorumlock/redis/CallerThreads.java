package io.quorumlock.redis;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.ThreadExecutorMap;
import io.quorumlock.redis.node.Replies;

/**
 * Keeps callers' code off the threads the engine depends on: the Lettuce (Netty) I/O
 * threads, which read every reply, and the engine's own scheduler, timer and listener
 * threads. A future handed to a caller is completed on the async executor when it would
 * otherwise complete on one of those (a hop that costs only when needed); a blocking call
 * made on one of them fails fast, since the reply it would wait for has to be read or
 * delivered by the very thread it blocks.
 */
final class CallerThreads {

	private final Executor async;

	/** The engine's own threads, registered by their factories as they start. */
	private final Set<Thread> engineThreads = ConcurrentHashMap.newKeySet();

	CallerThreads(Executor async) {
		this.async = async;
	}

	/** Register one of the engine's own threads. */
	Thread register(Thread thread) {
		this.engineThreads.add(thread);
		return thread;
	}

	/**
	 * Whether callers' code must not run, nor block, on this thread: one of the engine's,
	 * or a Netty event loop's, whatever thread factory made it (Lettuce resources an
	 * application supplies may use plain threads).
	 */
	boolean isEngineThread(Thread thread) {
		return thread instanceof FastThreadLocalThread || this.engineThreads.contains(thread)
				|| (thread == Thread.currentThread() && ThreadExecutorMap.currentExecutor() != null);
	}

	/**
	 * The outcome of {@code source} for a caller: the same future when it completes on a
	 * caller's thread, otherwise completed again from the async executor.
	 */
	<T> CompletableFuture<T> handOver(CompletableFuture<? extends T> source) {
		return handOver(source, null);
	}

	/**
	 * {@link #handOver(CompletableFuture)}, giving a value the caller can no longer
	 * receive (it cancelled or completed its future during the hop) to {@code unclaimed},
	 * so that a lease granted meanwhile is released, not leaked.
	 */
	<T> CompletableFuture<T> handOver(CompletableFuture<? extends T> source, Consumer<? super T> unclaimed) {
		CompletableFuture<T> handed = new CompletableFuture<>();
		source.whenComplete((value, failure) -> {
			Runnable hand = () -> {
				if (!complete(handed, value, failure) && failure == null && unclaimed != null) {
					unclaimed.accept(value);
				}
			};
			if (isEngineThread(Thread.currentThread())) {
				try {
					this.async.execute(hand);
					return;
				}
				catch (RejectedExecutionException ex) {
					// the executor is shut down: better an engine thread than no answer
				}
			}
			hand.run();
		});
		// cancelling what the caller holds cancels what is behind it
		handed.whenComplete((value, failure) -> {
			if (handed.isCancelled()) {
				source.cancel(false);
			}
		});
		return handed;
	}

	private static <T> boolean complete(CompletableFuture<T> future, T value, Throwable failure) {
		return (failure != null) ? future.completeExceptionally(Replies.unwrap(failure)) : future.complete(value);
	}

	/**
	 * Refuse a blocking call on an engine thread, naming the call, its lock, the thread
	 * and what to call instead; the message is built only when refusing (this check runs
	 * on every blocking acquire).
	 */
	void checkMayBlock(String call, ResolvedRequest request, String instead) {
		Thread current = Thread.currentThread();
		if (isEngineThread(current)) {
			throw new IllegalStateException(call + " of " + request.describe()
					+ " is a blocking call and was made on thread '" + current.getName()
					+ "', a Redis I/O or quorumlock thread: the reply it would wait for must be read by that same "
					+ "thread, so it could never arrive; use " + instead
					+ " instead, or continue on another executor (for example thenApplyAsync)");
		}
	}

}
