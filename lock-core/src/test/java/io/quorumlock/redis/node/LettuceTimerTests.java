package io.quorumlock.redis.node;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lettuce's timeouts on the engine's wheels: short delays (reconnects) on the fine one,
 * long ones (command timeouts) on the coarse one, and nothing armed once they are closed.
 */
class LettuceTimerTests {

	private final List<String> armed = new ArrayList<>();

	private boolean closed;

	private final ManualTimers manual = new ManualTimers();

	private final Timers timers = new Timers() {

		@Override
		public long nanoTime() {
			return LettuceTimerTests.this.manual.nanoTime();
		}

		@Override
		public long retryDelayNanos() {
			return 0;
		}

		@Override
		public Future<?> schedule(Runnable task, long delayNanos) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void execute(Runnable task) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void runOnScheduler(Runnable task) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Timeout after(long delayNanos, TimerTask task) {
			return arm("fine", delayNanos, task);
		}

		@Override
		public Timeout coarse(long delayNanos, TimerTask task) {
			return arm("coarse", delayNanos, task);
		}

		private Timeout arm(String wheel, long delayNanos, TimerTask task) {
			if (LettuceTimerTests.this.closed) {
				throw new IllegalStateException("the engine's timers are closed");
			}
			LettuceTimerTests.this.armed.add(wheel + " " + TimeUnit.NANOSECONDS.toMillis(delayNanos));
			return LettuceTimerTests.this.manual.after(delayNanos, task);
		}

	};

	private final LettuceTimer timer = new LettuceTimer(this.timers);

	@Test
	void aReconnectDelayGoesOnTheFineWheelACommandTimeoutOnTheCoarseOne() throws Exception {
		List<String> fired = new ArrayList<>();
		this.timer.newTimeout((timeout) -> fired.add("reconnect"), 10, TimeUnit.MILLISECONDS);
		Timeout command = this.timer.newTimeout((timeout) -> fired.add("command timed out"), 1, TimeUnit.SECONDS);
		assertThat(this.armed).containsExactly("fine 10", "coarse 1000");
		this.manual.advanceMillis(10);
		assertThat(fired).containsExactly("reconnect");
		assertThat(command.cancel()).isTrue(); // the reply came
		this.manual.advanceMillis(1000);
		assertThat(fired).containsExactly("reconnect");
	}

	@Test
	void onceTheEnginesTimersAreClosedNothingIsArmedAndNothingThrows() throws Exception {
		this.closed = true;
		List<String> fired = new ArrayList<>();
		Timeout timeout = this.timer.newTimeout((t) -> fired.add("fired"), 1, TimeUnit.SECONDS);
		assertThat(timeout.isCancelled()).isTrue();
		assertThat(timeout.timer()).isSameAs(this.timer);
		this.manual.advanceMillis(2000);
		assertThat(fired).isEmpty();
		assertThat(this.timer.stop()).as("the wheels are the engine's to stop").isEmpty();
	}

}
