package io.quorumlock.redis;

import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.quorumlock.redis.node.Timers;

/**
 * {@link Timers} on one daemon scheduler thread and two timing wheels
 * ({@link Deadlines}): a fine one for the rounds' deadlines and a coarse one, on the
 * watchdog's grid, for the timers of held leases; all registered as engine threads so
 * that callers' code never runs on them. Each wheel parks while it holds no timer and,
 * while it holds few, sleeps to the earliest one's tick; the coarse one's ticks are
 * {@link LeaseWatchdog#GRID_MILLIS} apart. An engine holding leases between renewals
 * wakes for the renewals, not at every tick.
 */
final class EngineTimers implements Timers, AutoCloseable {

	private final ScheduledThreadPoolExecutor scheduler;

	private final Deadlines deadlines;

	private final Deadlines watchdog;

	/**
	 * The engine's clock unless a test gives it another: the clock of the timing wheels,
	 * so that a deadline on it is handed to them as it is.
	 */
	static final LongSupplier SYSTEM_CLOCK = System::nanoTime;

	private final LongSupplier clock;

	private final long retryMinNanos;

	private final long retryMaxNanos;

	EngineTimers(CallerThreads threads, LongSupplier clock, long retryMinNanos, long retryMaxNanos) {
		this.clock = clock;
		this.retryMinNanos = retryMinNanos;
		this.retryMaxNanos = retryMaxNanos;
		this.scheduler = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "quorumlock-scheduler");
			thread.setDaemon(true);
			return threads.register(thread);
		});
		this.scheduler.setRemoveOnCancelPolicy(true);
		this.deadlines = new Deadlines("quorumlock-deadlines", Deadlines.TICK_MILLIS, threads::register);
		this.watchdog = new Deadlines("quorumlock-watchdog", LeaseWatchdog.GRID_MILLIS, threads::register);
	}

	@Override
	public long nanoTime() {
		return this.clock.getAsLong();
	}

	@Override
	public long retryMinNanos() {
		return this.retryMinNanos;
	}

	@Override
	public long retryMaxNanos() {
		return this.retryMaxNanos;
	}

	@Override
	public long retryDelayNanos() {
		if (this.retryMaxNanos <= this.retryMinNanos) {
			return this.retryMinNanos;
		}
		return ThreadLocalRandom.current().nextLong(this.retryMinNanos, this.retryMaxNanos + 1);
	}

	@Override
	public Future<?> schedule(Runnable task, long delayNanos) {
		return this.scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void execute(Runnable task) {
		this.scheduler.execute(task);
	}

	@Override
	public void runOnScheduler(Runnable task) {
		try {
			this.scheduler.execute(task);
		}
		catch (RejectedExecutionException ex) {
			// closed: nothing is watched any more
		}
	}

	@Override
	public Timeout after(long delayNanos, TimerTask task) {
		return this.deadlines.after(delayNanos, task);
	}

	@Override
	public Timeout coarse(long delayNanos, TimerTask task) {
		return this.watchdog.after(delayNanos, task);
	}

	@Override
	public Timeout at(long deadline, TimerTask task) {
		return at(this.deadlines, deadline, task);
	}

	@Override
	public Timeout coarseAt(long deadline, TimerTask task) {
		return at(this.watchdog, deadline, task);
	}

	/** The wheels run on the system clock: another clock's deadline becomes a delay. */
	private Timeout at(Deadlines wheel, long deadline, TimerTask task) {
		return (this.clock == SYSTEM_CLOCK) ? wheel.at(deadline, task) : wheel.after(deadline - nanoTime(), task);
	}

	/** The scheduler, for the nodes' background work and for tests. */
	ScheduledThreadPoolExecutor scheduler() {
		return this.scheduler;
	}

	/** Stop the threads; pending tasks are dropped. */
	@Override
	public void close() {
		this.scheduler.shutdownNow();
		this.deadlines.close();
		this.watchdog.close();
	}

	/** Wait for the scheduler thread to end, as far as the timeout allows. */
	void awaitTermination() throws InterruptedException {
		this.scheduler.awaitTermination(2, TimeUnit.SECONDS);
	}

}
