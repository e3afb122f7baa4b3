package io.quorumlock.redis.node;

import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;

/**
 * The engine's sense of time: the injected clock, the jittered retry delay, the one
 * scheduler thread that runs the acquisitions' next steps, and the timing wheel for the
 * deadlines armed and cancelled on every round. Tests drive the algorithm with a manual
 * implementation and a fake clock.
 */
public interface Timers {

	/** The injected clock, in {@code System.nanoTime()} units. */
	long nanoTime();

	/** A jittered retry delay in [retry min, retry max]. */
	long retryDelayNanos();

	/** The shortest retry delay. */
	default long retryMinNanos() {
		return retryDelayNanos();
	}

	/** The longest retry delay. */
	default long retryMaxNanos() {
		return retryDelayNanos();
	}

	/** A random index in {@code [0, bound)}: where a pass over permit slots starts. */
	default int nextInt(int bound) {
		return ThreadLocalRandom.current().nextInt(bound);
	}

	/** Run {@code task} on the scheduler thread after {@code delayNanos}. */
	Future<?> schedule(Runnable task, long delayNanos);

	/** Run {@code task} on the scheduler thread. */
	void execute(Runnable task);

	/**
	 * Run {@code task} on the scheduler thread, from a timer that must not run it itself;
	 * after the engine closed the task is dropped.
	 */
	void runOnScheduler(Runnable task);

	/**
	 * Run {@code task} on the wheel's thread after {@code delayNanos}, unless cancelled
	 * first; the task must not block.
	 */
	Timeout after(long delayNanos, TimerTask task);

	/**
	 * {@link #after}, on a coarser timer for timers far ahead that many arm together (the
	 * watchdog's, on its grid): its ticks fall on multiples of the grid of
	 * {@link #nanoTime()}; by default {@link #after} itself.
	 */
	default Timeout coarse(long delayNanos, TimerTask task) {
		return after(delayNanos, task);
	}

	/**
	 * {@link #after}, due at {@code deadline} of {@link #nanoTime()} rather than after a
	 * delay: a deadline on a tick of the wheel fires at that tick. (A delay measured from
	 * a clock read a moment before ends a moment after the tick, and so fired a whole
	 * tick late.)
	 */
	default Timeout at(long deadline, TimerTask task) {
		return after(deadline - nanoTime(), task);
	}

	/** {@link #at} on the {@link #coarse} timer. */
	default Timeout coarseAt(long deadline, TimerTask task) {
		return coarse(deadline - nanoTime(), task);
	}

}
