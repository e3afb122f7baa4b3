package io.quorumlock.redis;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import io.netty.util.Timeout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The timing wheel on its own thread: a timer fires at its first tick at or after its
 * time, never before; those whose times fall within one tick of the grid fire together; a
 * cancelled one never fires; the thread parks while it holds no timer and wakes for the
 * next, and while it holds few it sleeps to the earliest, woken by one armed earlier.
 * Every wait has a timeout; assertions are about order, never about how late.
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

	/**
	 * Spin until {@code condition} holds or 5 s have passed; the caller asserts what it
	 * waited for.
	 */
	private static void spinUntil(BooleanSupplier condition) {
		long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (!condition.getAsBoolean() && System.nanoTime() < giveUp) {
			Thread.onSpinWait();
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
		spinUntil(() -> this.thread.get().getState() == Thread.State.WAITING);
		assertThat(this.thread.get().getState()).as("parked without a timeout").isEqualTo(Thread.State.WAITING);
		firedAt(wheel, TimeUnit.MILLISECONDS.toNanos(10)).get(5, TimeUnit.SECONDS);
	}

	@Test
	void threadSleepsThroughTheTicksBeforeItsEarliestTimer() throws Exception {
		Deadlines wheel = wheel(5);
		long before = wheel.wakeUps();
		// 60 ticks ahead: a wheel that woke at each tick would wake 60 times
		long armed = System.nanoTime();
		long fired = firedAt(wheel, TimeUnit.MILLISECONDS.toNanos(300)).get(5, TimeUnit.SECONDS);
		assertThat(fired - armed).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
		// at most every tenth tick (what it has not yet taken in is bounded): 6, and a
		// few more for the first timer and a park that ends early
		assertThat(wheel.wakeUps() - before).as("wake-ups for one timer 60 ticks ahead").isLessThan(15);
	}

	@Test
	void threadHoldingOnlyAFarTimerStillWakesEveryFewTicksToTakeInWhatWasArmedAndCancelled() {
		Deadlines wheel = wheel(5);
		CompletableFuture<Long> far = firedAt(wheel, TimeUnit.SECONDS.toNanos(60));
		long before = wheel.wakeUps();
		// a wheel that slept to its one timer would not wake again for 60 s
		spinUntil(() -> wheel.wakeUps() - before >= 3);
		assertThat(wheel.wakeUps() - before).isGreaterThanOrEqualTo(3);
		assertThat(far).isNotDone();
	}

	@Test
	void timerDueBeforeTheTickTheThreadSleepsToWakesIt() throws Exception {
		Deadlines wheel = wheel(5);
		CompletableFuture<Long> far = firedAt(wheel, TimeUnit.SECONDS.toNanos(60));
		spinUntil(() -> this.thread.get().getState() == Thread.State.TIMED_WAITING);
		assertThat(this.thread.get().getState()).as("asleep until the far timer").isEqualTo(Thread.State.TIMED_WAITING);
		long armed = System.nanoTime();
		long fired = firedAt(wheel, TimeUnit.MILLISECONDS.toNanos(20)).get(5, TimeUnit.SECONDS);
		assertThat(fired - armed).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
		assertThat(far).isNotDone();
	}

	@Test
	void manyTimersFireEachNoEarlierThanItsTimeWithTheEarliestCancelled() throws Exception {
		Deadlines wheel = wheel(5);
		// more than the wheel sleeps ahead for, then fewer as they fire
		int count = Deadlines.SKIP_AHEAD_LIMIT + 16;
		long start = System.nanoTime();
		long[] deadlines = new long[count];
		List<CompletableFuture<Long>> fired = new ArrayList<>();
		Timeout first = wheel.at(start + TimeUnit.MILLISECONDS.toNanos(5), (t) -> {
		});
		for (int i = 0; i < count; i++) {
			deadlines[i] = start + TimeUnit.MILLISECONDS.toNanos(10 + 3L * i);
			CompletableFuture<Long> f = new CompletableFuture<>();
			wheel.at(deadlines[i], (t) -> f.complete(System.nanoTime()));
			fired.add(f);
		}
		first.cancel();
		for (int i = 0; i < count; i++) {
			assertThat(fired.get(i).get(5, TimeUnit.SECONDS)).as("timer %d", i).isGreaterThanOrEqualTo(deadlines[i]);
		}
		assertThat(first.isExpired()).isFalse();
	}

	@Test
	void cancelledTimerLetsGoOfItsTaskBeforeTheWheelTakesItIn() {
		// a tick of 1 s: the thread, asleep ten ticks at a time, takes nothing in for
		// 10 s
		Deadlines wheel = wheel(1000);
		firedAt(wheel, TimeUnit.SECONDS.toNanos(60));
		spinUntil(() -> this.thread.get().getState() == Thread.State.TIMED_WAITING);
		WeakReference<Object> held = new WeakReference<>(armAndCancel(wheel));
		spinUntil(() -> {
			System.gc();
			return held.get() == null;
		});
		assertThat(held.get()).as("what the cancelled timer's task held").isNull();
	}

	@Test
	void sleepingThreadWakesToTakeInManyTimersArmedForLaterAndCancelled() {
		// a tick of 1 s: asleep ten ticks at a time, unless what it holds in its queues
		// wakes it
		Deadlines wheel = wheel(1000);
		firedAt(wheel, TimeUnit.SECONDS.toNanos(60));
		spinUntil(() -> this.thread.get().getState() == Thread.State.TIMED_WAITING);
		long before = wheel.wakeUps();
		for (int i = 0; i < Deadlines.WAKE_AFTER_QUEUED / 2; i++) {
			wheel.after(TimeUnit.SECONDS.toNanos(30), (t) -> {
			}).cancel();
		}
		spinUntil(() -> wheel.wakeUps() != before);
		assertThat(wheel.wakeUps()).as("woken by its queues").isGreaterThan(before);
	}

	/** Arm a timer whose task holds a new object, cancel it, and return the object. */
	private static Object armAndCancel(Deadlines wheel) {
		Object payload = new byte[1024];
		Timeout timeout = wheel.after(TimeUnit.SECONDS.toNanos(30), (t) -> payload.hashCode());
		assertThat(timeout.cancel()).isTrue();
		assertThat(timeout.task()).isNull();
		return payload;
	}

	@Test
	void closedWheelRefusesTimers() {
		Deadlines wheel = wheel(5);
		wheel.close();
		assertThatIllegalStateException().isThrownBy(() -> wheel.after(0, (t) -> {
		}));
	}

}
