package io.quorumlock.redis;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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

	/** Whether {@link #async} is the engine's own, to shut down when it closes. */
	private final boolean ownsAsync;

	CallerThreads(Executor async) {
		this(async, false);
	}

	CallerThreads(Executor async, boolean ownsAsync) {
		this.async = async;
		this.ownsAsync = ownsAsync;
	}

	/**
	 * Where callers' continuations run when the application names no executor: the common
	 * pool where it has workers to spare, else (one or two cores, where the common pool's
	 * parallelism is 1) a pool of this engine's own that keeps its threads for a while.
	 * {@code CompletableFuture}'s default there is a new thread for every task, which an
	 * engine handing out a future per acquisition and release would pay each time; the
	 * pool below grows as that one would (a continuation that blocks never holds up
	 * another) but reuses an idle thread. Its threads are callers' threads, not the
	 * engine's: code may block there.
	 * @param parallelism the common pool's parallelism
	 * @return the common pool, or a new pool the engine shuts down when it closes
	 */
	static Executor defaultAsync(int parallelism) {
		if (parallelism > 1) {
			return ForkJoinPool.commonPool();
		}
		AtomicInteger count = new AtomicInteger();
		return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), (task) -> {
			Thread thread = new Thread(task, "quorumlock-async-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * Stop the executor if it is one {@link #defaultAsync} made for this engine (never
	 * the common pool, never an application's): what it was given still runs.
	 */
	void close() {
		if (this.ownsAsync && this.async instanceof ExecutorService own && own != ForkJoinPool.commonPool()) {
			own.shutdown();
		}
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
