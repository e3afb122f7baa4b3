package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SimLoop} and {@link SimTimers}: events in (time, sequence) order, a paused
 * actor's events deferred in order, a dead actor's dropped, an engine clock at its own
 * rate that keeps running through a pause, and a loop that never lets time pass is
 * stopped.
 */
class SimLoopTests {

	private final SimLoop loop = new SimLoop(7, true);

	private final List<String> ran = new ArrayList<>();

	private Runnable note(String what) {
		return () -> this.ran.add(what + "@" + this.loop.now() / 1_000_000);
	}

	@Test
	void eventsRunInTimeThenSequenceOrderAndCancelledOnesNever() {
		this.loop.at(SimRun.millis(20), null, note("c"));
		this.loop.at(SimRun.millis(10), null, note("a"));
		this.loop.at(SimRun.millis(10), null, note("b"));
		this.loop.at(SimRun.millis(15), null, note("x")).cancel();
		this.loop.runUntil(SimRun.millis(100));
		assertThat(this.ran).containsExactly("a@10", "b@10", "c@20");
		assertThat(this.loop.now()).isEqualTo(SimRun.millis(100));
	}

	@Test
	void aPausedActorRunsItsEventsInOrderWhenItResumesAndADeadOneNever() {
		SimLoop.Actor engine = new SimLoop.Actor("e0");
		SimLoop.Actor gone = new SimLoop.Actor("e1");
		this.loop.at(SimRun.millis(5), engine, note("first"));
		this.loop.at(SimRun.millis(8), engine, note("second"));
		this.loop.at(SimRun.millis(6), null, note("other"));
		this.loop.at(SimRun.millis(1), gone, note("dead"));
		gone.dead = true;
		this.loop.pause(engine);
		this.loop.at(SimRun.millis(30), null, () -> this.loop.resume(engine));
		this.loop.runUntil(SimRun.millis(100));
		assertThat(this.ran).containsExactly("other@6", "first@30", "second@30");
		assertThat(engine.resumedAt).isEqualTo(SimRun.millis(30));
	}

	@Test
	void anEngineClockRunsAtItsOwnRateFromItsOwnOffsetAndThroughAPause() {
		SimLoop.Actor engine = new SimLoop.Actor("e0");
		SimTimers timers = new SimTimers(this.loop, engine, Long.MAX_VALUE - 5, 2_000, 1, 2);
		long start = timers.nanoTime();
		Future<?> timer = timers.schedule(note("timer"), SimRun.millis(1000));
		this.loop.pause(engine);
		this.loop.at(SimRun.millis(2000), null, () -> this.loop.resume(engine));
		this.loop.runUntil(SimRun.millis(3000));
		// 0.2 % fast: a second of the engine's clock passes in 998 ms of true time
		assertThat(this.ran).containsExactly("timer@2000");
		assertThat(timer.isDone()).isTrue();
		assertThat(timers.nanoTime() - start).isEqualTo(SimRun.millis(3006));
		assertThat(timers.trueAt(start + SimRun.millis(1000))).isEqualTo(998_003_993L);
	}

	@Test
	void workThatNeverLetsTimePassIsABusyLoop() {
		Runnable[] again = new Runnable[1];
		again[0] = () -> this.loop.at(0, null, again[0]);
		this.loop.at(0, null, again[0]);
		org.assertj.core.api.Assertions.assertThatIllegalStateException()
			.isThrownBy(() -> this.loop.runUntil(SimRun.millis(1)))
			.withMessageContaining("busy loop");
	}

	@Test
	void theTraceIsHashedAndItsTailKept() {
		this.loop.trace("one");
		this.loop.at(SimRun.millis(1), null, () -> this.loop.trace("two"));
		this.loop.runUntil(SimRun.millis(2));
		assertThat(this.loop.wholeTrace()).containsExactly("0.000 one", "1.000 two");
		assertThat(this.loop.tail()).containsExactly("0.000 one", "1.000 two");
		SimLoop other = new SimLoop(7, false);
		other.trace("one");
		assertThat(other.traceHash()).isNotEqualTo(this.loop.traceHash());
	}

}
