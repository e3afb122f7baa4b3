package io.quorumlock.redis.node;

import java.util.Collections;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;

/**
 * The engine's timing wheels as the timer of the Lettuce resources the engine makes, for
 * Lettuce's command timeouts and reconnect delays: Lettuce's own timer is a thread that
 * wakes ten times a second for as long as the engine runs, while the engine's wheels
 * sleep when nothing is armed. A delay under {@link #COARSE_FROM_NANOS} goes on the fine
 * wheel (a reconnect after 10 ms), a longer one on the coarse wheel (a command timeout of
 * a second or more fires at most one coarse tick late). Neither fires early. Once the
 * engine's timers are closed, a timeout is not armed: the engine closes its connections
 * next, and its own deadlines bound every command it waits for.
 */
final class LettuceTimer implements Timer {

	/** Delays from here on go on the coarse wheel. */
	static final long COARSE_FROM_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final Timers timers;

	LettuceTimer(Timers timers) {
		this.timers = timers;
	}

	@Override
	public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
		long nanos = unit.toNanos(delay);
		try {
			return (nanos < COARSE_FROM_NANOS) ? this.timers.after(nanos, task) : this.timers.coarse(nanos, task);
		}
		catch (IllegalStateException ex) { // the engine's timers are closed
			return new NotArmed(this, task);
		}
	}

	/** Does nothing: the wheels are the engine's, and stop when it closes. */
	@Override
	public Set<Timeout> stop() {
		return Collections.emptySet();
	}

	/** A timeout asked for after the engine's timers closed: never fires. */
	private record NotArmed(Timer timer, TimerTask task) implements Timeout {

		@Override
		public boolean isExpired() {
			return false;
		}

		@Override
		public boolean isCancelled() {
			return true;
		}

		@Override
		public boolean cancel() {
			return false;
		}

	}

}
