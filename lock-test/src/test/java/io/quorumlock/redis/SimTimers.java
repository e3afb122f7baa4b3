package io.quorumlock.redis;

import java.util.concurrent.Future;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;

/**
 * One simulated engine's {@link Timers}: its monotonic clock runs at its own rate (within
 * the clock-drift factor) from its own offset, and keeps running while the engine is
 * paused; its scheduler, wheel and random choices are the run's one {@link SimLoop}. An
 * engine paused (a GC pause, SIGSTOP) runs nothing until it resumes, then finds its clock
 * jumped.
 */
final class SimTimers implements Timers {

	private final SimLoop loop;

	final SimLoop.Actor actor;

	/** The engine's clock at true time zero. */
	private final long offset;

	/** How far the clock runs fast (positive) or slow, in parts per million. */
	private final long driftPpm;

	private final long retryMinNanos;

	private final long retryMaxNanos;

	SimTimers(SimLoop loop, SimLoop.Actor actor, long offset, long driftPpm, long retryMinNanos, long retryMaxNanos) {
		this.loop = loop;
		this.actor = actor;
		this.offset = offset;
		this.driftPpm = driftPpm;
		this.retryMinNanos = retryMinNanos;
		this.retryMaxNanos = retryMaxNanos;
	}

	@Override
	public long nanoTime() {
		return clockAt(this.loop.now());
	}

	/** The engine's clock at a true time. */
	long clockAt(long trueNanos) {
		return this.offset + trueNanos + trueNanos / 1_000_000 * this.driftPpm;
	}

	/** The true time at which the engine's clock reads {@code clock} (at the latest). */
	long trueAt(long clock) {
		long elapsed = clock - this.offset;
		// elapsed = t + t/1e6*ppm, so t ~ elapsed / (1 + ppm/1e6); then step to the exact
		long t = (long) (elapsed / (1 + this.driftPpm / 1e6));
		while (clockAt(t) < clock) {
			t++;
		}
		while (t > 0 && clockAt(t - 1) >= clock) {
			t--;
		}
		return t;
	}

	/** True nanoseconds that pass while the engine's clock advances {@code nanos}. */
	long trueDelay(long nanos) {
		if (nanos <= 0) {
			return 0;
		}
		return Math.max(0, trueAt(nanoTime() + nanos) - this.loop.now());
	}

	@Override
	public long retryDelayNanos() {
		if (this.retryMaxNanos <= this.retryMinNanos) {
			return this.retryMinNanos;
		}
		return this.retryMinNanos + (long) (this.loop.random.nextDouble() * (this.retryMaxNanos - this.retryMinNanos));
	}

	@Override
	public long retryMaxNanos() {
		return this.retryMaxNanos;
	}

	@Override
	public int nextInt(int bound) {
		return this.loop.random.nextInt(bound);
	}

	@Override
	public Future<?> schedule(Runnable task, long delayNanos) {
		return this.loop.at(trueDelay(delayNanos), this.actor, task);
	}

	@Override
	public void execute(Runnable task) {
		this.loop.at(0, this.actor, task);
	}

	@Override
	public void runOnScheduler(Runnable task) {
		this.loop.at(0, this.actor, task);
	}

	@Override
	public Timeout after(long delayNanos, TimerTask task) {
		return this.loop.timeout(trueDelay(delayNanos), this.actor, task);
	}

}
