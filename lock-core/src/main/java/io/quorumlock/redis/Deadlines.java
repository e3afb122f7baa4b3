package io.quorumlock.redis;

import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;

/**
 * The per-round node-timeout deadlines and the leases' watchdog timers, on a timing
 * wheel. Every round of every acquisition and release arms one, as does every grant, and
 * almost always cancels it a millisecond later; on a {@code ScheduledThreadPoolExecutor}
 * each of those is a locked heap insert and removal that also wakes the scheduler thread
 * (the new deadline is the earliest task), which showed in profiles of the benchmarks.
 * Arming a wheel timeout is a lock-free enqueue and cancelling it a CAS; the wheel's
 * thread ticks every {@link #TICK_MILLIS} ms, so a deadline fires at most that much late.
 */
final class Deadlines implements AutoCloseable {

	/** Resolution of a deadline: it fires between its time and one tick later. */
	static final long TICK_MILLIS = 5;

	private final HashedWheelTimer wheel;

	Deadlines(String threadName, UnaryOperator<Thread> register) {
		this.wheel = new HashedWheelTimer((runnable) -> {
			Thread thread = new Thread(runnable, threadName);
			thread.setDaemon(true);
			return register.apply(thread);
		}, TICK_MILLIS, TimeUnit.MILLISECONDS, 256);
		this.wheel.start();
	}

	/**
	 * Run {@code task} on the wheel's thread after {@code delayNanos}, unless cancelled
	 * first; the task must not block.
	 */
	Timeout after(long delayNanos, TimerTask task) {
		return this.wheel.newTimeout(task, delayNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void close() {
		this.wheel.stop();
	}

}
