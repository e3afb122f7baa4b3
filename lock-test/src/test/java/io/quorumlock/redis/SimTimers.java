package io.quorumlock.redis;

import java.util.concurrent.Future;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.quorumlock.redis.node.Timers;

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

	/** How far the clock runs fast (positive) or slow, as a fraction. */
	private final double rate;

	private final long retryMinNanos;

	private final long retryMaxNanos;

	SimTimers(SimLoop loop, SimLoop.Actor actor, long offset, long driftPpm, long retryMinNanos, long retryMaxNanos) {
		this.loop = loop;
		this.actor = actor;
		this.offset = offset;
		this.rate = driftPpm / 1e6;
		this.retryMinNanos = retryMinNanos;
		this.retryMaxNanos = retryMaxNanos;
	}

	@Override
	public long nanoTime() {
		return clockAt(this.loop.now());
	}

	/** The engine's clock at a true time: monotonic, at its own rate. */
	long clockAt(long trueNanos) {
		return this.offset + trueNanos + (long) (trueNanos * this.rate);
	}

	/** The first true time at which the engine's clock reads {@code clock} or later. */
	long trueAt(long clock) {
		long elapsed = clock - this.offset;
		long t = (long) (elapsed / (1 + this.rate));
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
	public long retryMinNanos() {
		return this.retryMinNanos;
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
