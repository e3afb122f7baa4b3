package io.quorumlock.etcd;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One periodic pass over every lease of a registry, on its one scheduler thread: each
 * held lease or waiting acquisition is asked whether a keep-alive is due (every third of
 * its lease) or its validity ran out. A due keep-alive is one request on the client's
 * shared connection, answered on the executor: no stream kept open and no thread per
 * lease, however many leases are held.
 */
final class KeepAlives {

	/** Something whose etcd lease the pass looks after. */
	interface Kept {

		/**
		 * Called on each pass: send a keep-alive if one is due, report a loss if the
		 * validity ran out. Must not block.
		 * @param now the pass's time, {@link System#nanoTime()}
		 */
		void pass(long now);

	}

	private final Set<Kept> kept = ConcurrentHashMap.newKeySet();

	private final ScheduledExecutorService scheduler;

	private final Executor executor;

	private final ScheduledFuture<?> passes;

	KeepAlives(ScheduledExecutorService scheduler, Executor executor, Duration period) {
		this.scheduler = scheduler;
		this.executor = executor;
		this.passes = scheduler.scheduleWithFixedDelay(this::pass, period.toNanos(), period.toNanos(),
				TimeUnit.NANOSECONDS);
	}

	void add(Kept lease) {
		this.kept.add(lease);
	}

	void remove(Kept lease) {
		this.kept.remove(lease);
	}

	int size() {
		return this.kept.size();
	}

	/** Run {@code task} on the executor after {@code delayNanos}. */
	ScheduledFuture<?> later(long delayNanos, Runnable task) {
		return this.scheduler.schedule(() -> this.executor.execute(task), Math.max(0, delayNanos),
				TimeUnit.NANOSECONDS);
	}

	private void pass() {
		long now = System.nanoTime();
		for (Kept lease : this.kept) {
			try {
				lease.pass(now);
			}
			catch (RuntimeException ex) {
				System.getLogger(KeepAlives.class.getName())
					.log(System.Logger.Level.WARNING, "keep-alive pass failed for " + lease, ex);
			}
		}
	}

	void close() {
		this.passes.cancel(false);
		this.kept.clear();
	}

}
