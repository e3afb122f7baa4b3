package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.netty.util.Timeout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The timing wheel on its own thread: a timer fires at its first tick at or after its
 * time, never before; those whose times fall within one tick of the grid fire together; a
 * cancelled one never fires; the thread parks while it holds no timer and wakes for the
 * next. Every wait has a timeout; assertions are about order, never about how late.
 */
class DeadlinesTests {

	private final AtomicReference<Thread> thread = new AtomicReference<>();

	private Deadlines wheel;

	private Deadlines wheel(long tickMillis) {
		this.wheel = new Deadlines("deadlines-test", tickMillis, (t) -> {
			this.thread.set(t);
			return t;
		});
		return this.wheel;
	}

	@AfterEach
	void close() {
		if (this.wheel != null) {
			this.wheel.close();
		}
	}

	private static CompletableFuture<Long> firedAt(Deadlines wheel, long delayNanos) {
		CompletableFuture<Long> fired = new CompletableFuture<>();
		wheel.after(delayNanos, (timeout) -> fired.complete(System.nanoTime()));
		return fired;
	}

	@Test
	void deadlineOnATickIsDueAtThatTickAndOnePastItAtTheNext() {
		long tick = TimeUnit.MILLISECONDS.toNanos(100);
		assertThat(Deadlines.tickOf(42 * tick, tick)).isEqualTo(42);
		assertThat(Deadlines.tickOf(42 * tick + 1, tick)).isEqualTo(43);
		assertThat(Deadlines.tickOf(42 * tick - 1, tick)).isEqualTo(42);
		assertThat(Deadlines.tickOf(-tick, tick)).isEqualTo(-1);
	}

	@Test
	void timerAtADeadlineFiresNoEarlierThanIt() throws Exception {
		Deadlines wheel = wheel(5);
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(30);
		CompletableFuture<Long> fired = new CompletableFuture<>();
		wheel.at(deadline, (timeout) -> fired.complete(System.nanoTime()));
		assertThat(fired.get(5, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(deadline);
	}

	@Test
	void timerFiresNoEarlierThanItsDelay() throws Exception {
		Deadlines wheel = wheel(5);
		long armed = System.nanoTime();
		long fired = firedAt(wheel, TimeUnit.MILLISECONDS.toNanos(30)).get(5, TimeUnit.SECONDS);
		assertThat(fired - armed).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(30));
	}

	@Test
	void timersWithinOneTickOfTheGridFireTogetherAtItsEnd() throws Exception {
		Deadlines wheel = wheel(100);
		long tick = wheel.tickNanos();
		long now = System.nanoTime();
		// a tick at least 150 ms ahead, and two times 80 ms apart just before it
		long end = (Math.floorDiv(now, tick) + 3) * tick;
		long early = end - TimeUnit.MILLISECONDS.toNanos(90);
		long late = end - TimeUnit.MILLISECONDS.toNanos(10);
		CompletableFuture<Long> first = firedAt(wheel, early - now);
		CompletableFuture<Long> second = firedAt(wheel, late - now);
		assertThat(second.get(5, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(late);
		assertThat(first.get(5, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(late);
	}

	@Test
	void cancelledTimerNeverFires() throws Exception {
		Deadlines wheel = wheel(5);
		CompletableFuture<Long> cancelled = new CompletableFuture<>();
		Timeout timeout = wheel.after(TimeUnit.MILLISECONDS.toNanos(20), (t) -> cancelled.complete(System.nanoTime()));
		assertThat(timeout.cancel()).isTrue();
		firedAt(wheel, TimeUnit.MILLISECONDS.toNanos(60)).get(5, TimeUnit.SECONDS);
		assertThat(cancelled).isNotDone();
		assertThat(timeout.isCancelled()).isTrue();
		assertThat(timeout.isExpired()).isFalse();
		assertThat(timeout.cancel()).isFalse();
	}

	@Test
	void threadParksWhileItHoldsNoTimerAndWakesForTheNext() throws Exception {
		Deadlines wheel = wheel(5);
		firedAt(wheel, TimeUnit.MILLISECONDS.toNanos(10)).get(5, TimeUnit.SECONDS);
		// a cancelled timer is unlinked, so it does not keep the thread ticking either
		wheel.after(TimeUnit.SECONDS.toNanos(60), (t) -> {
		}).cancel();
		long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (this.thread.get().getState() != Thread.State.WAITING && System.nanoTime() < giveUp) {
			Thread.onSpinWait();
		}
		assertThat(this.thread.get().getState()).as("parked without a timeout").isEqualTo(Thread.State.WAITING);
		firedAt(wheel, TimeUnit.MILLISECONDS.toNanos(10)).get(5, TimeUnit.SECONDS);
	}

	@Test
	void closedWheelRefusesTimers() {
		Deadlines wheel = wheel(5);
		wheel.close();
		assertThatIllegalStateException().isThrownBy(() -> wheel.after(0, (t) -> {
		}));
	}

}
