package io.quorumlock.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.quorumlock.LeaseLostException;
import io.quorumlock.Lease;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;

/**
 * The registry's listeners behind one. Calls run on one dedicated daemon thread, in the
 * order the events happened (so a lease's own events arrive in order: acquired, renewed
 * or lost, released), never on a Redis I/O, scheduler or timer thread: a slow listener
 * delays other listener calls, never a renewal. Each call is guarded: a listener that
 * throws is logged and skipped, so observability can never stop a grant or a release. The
 * queue is bounded; when a listener falls that far behind, further events are dropped
 * (and counted in a warning) rather than stall the engine.
 */
final class Listeners implements LockListener, AutoCloseable {

	private static final System.Logger log = System.getLogger(Listeners.class.getName());

	/** Events queued for the listener thread at most. */
	static final int QUEUE = 16_384;

	private final List<LockListener> listeners;

	/** Null without listeners: nothing to dispatch, no thread. */
	private final ThreadPoolExecutor executor;

	private final AtomicLong dropped = new AtomicLong();

	Listeners(List<LockListener> listeners, CallerThreads threads) {
		this.listeners = List.copyOf(listeners);
		this.executor = this.listeners.isEmpty() ? null : new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
				new ArrayBlockingQueue<>(QUEUE), (runnable) -> {
					Thread thread = new Thread(runnable, "quorumlock-listeners");
					thread.setDaemon(true);
					return threads.register(thread);
				});
	}

	/**
	 * Whether no listener is registered: a caller may then skip building an event and go
	 * straight to what follows it (what {@code then} would run).
	 */
	boolean isEmpty() {
		return this.executor == null;
	}

	private void each(String event, Consumer<LockListener> call) {
		for (LockListener listener : this.listeners) {
			try {
				call.accept(listener);
			}
			catch (Throwable ex) {
				log.log(Level.WARNING, "LockListener " + listener.getClass().getName() + " failed on " + event, ex);
			}
		}
	}

	/**
	 * Tell the listeners on their thread, then run {@code then} there; without listeners
	 * (or when the event is dropped) {@code then} runs at once on this thread.
	 */
	private void dispatch(String event, Consumer<LockListener> call, Runnable then) {
		if (this.executor != null) {
			try {
				this.executor.execute(() -> {
					if (call != null) {
						each(event, call);
					}
					if (then != null) {
						then.run();
					}
				});
				return;
			}
			catch (RejectedExecutionException ex) {
				long count = this.dropped.incrementAndGet();
				if (Long.bitCount(count) == 1) { // 1, 2, 4, 8...: loud but not a flood
					log.log(Level.WARNING, count + " listener event(s) dropped (" + event + "): the listeners are "
							+ QUEUE + " events behind, or the engine is closed");
				}
			}
		}
		if (then != null) {
			then.run();
		}
	}

	/**
	 * Tell of a grant, then run {@code then} (which hands the lease to the caller): the
	 * listeners hear of the grant before the caller does.
	 */
	void onAcquired(LockRequest request, Lease lease, Duration waited, Runnable then) {
		dispatch("onAcquired", (l) -> l.onAcquired(request, lease, waited), then);
	}

	/** Tell of a failed acquisition, then run {@code then}. */
	void onNotAcquired(LockRequest request, Duration waited, Throwable failure, Runnable then) {
		dispatch("onNotAcquired", (l) -> l.onNotAcquired(request, waited, failure), then);
	}

	/** Tell of a release, then run {@code then}. */
	void onReleased(LockRequest request, Lease lease, Duration held, Runnable then) {
		dispatch("onReleased", (l) -> l.onReleased(request, lease, held), then);
	}

	@Override
	public void onAcquired(LockRequest request, Lease lease, Duration waited) {
		onAcquired(request, lease, waited, null);
	}

	@Override
	public void onNotAcquired(LockRequest request, Duration waited, Throwable failure) {
		onNotAcquired(request, waited, failure, null);
	}

	@Override
	public void onReleased(LockRequest request, Lease lease, Duration held) {
		onReleased(request, lease, held, null);
	}

	@Override
	public void onRenewed(LockRequest request, Lease lease) {
		dispatch("onRenewed", (l) -> l.onRenewed(request, lease), null);
	}

	/**
	 * Tell of the first {@code count} renewals of {@code leases}, in order, as one task
	 * on the listener thread (one slot of its queue) rather than one per renewal; the
	 * array must not change afterwards.
	 */
	void onRenewed(RedisLease[] leases, int count) {
		if (this.executor == null || count == 0) {
			return;
		}
		dispatch("onRenewed", null, () -> {
			for (int i = 0; i < count; i++) {
				RedisLease lease = leases[i];
				each("onRenewed", (l) -> l.onRenewed(lease.request().request(), lease));
			}
		});
	}

	@Override
	public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
		dispatch("onLost", (l) -> l.onLost(request, lease, cause), null);
	}

	@Override
	public void onNodeError(String node, Throwable error) {
		dispatch("onNodeError", (l) -> l.onNodeError(node, error), null);
	}

	/** Stop the listener thread once the events already queued are told. */
	@Override
	public void close() {
		if (this.executor != null) {
			this.executor.shutdown();
		}
	}

}
