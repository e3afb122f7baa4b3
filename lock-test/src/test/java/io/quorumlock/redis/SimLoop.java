package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;

/**
 * The one event loop of a simulated run: virtual time in nanoseconds, one queue of events
 * ordered by (time, sequence), one seeded {@link Random}, one thread. Every timer,
 * continuation, network delivery and fault of a run is an event here, so a run is a pure
 * function of its seed.
 * <p>
 * An event may belong to an {@link Actor} (an engine, a server): while the actor is
 * paused its events wait, in order, and run when it resumes; once it is dead they never
 * run. The loop keeps a trace: every line is hashed, the last lines are kept for a
 * failure report, and all of them when asked (to compare two runs byte for byte).
 */
final class SimLoop {

	/** Lines a failure report shows. */
	static final int TRACE_TAIL = 60;

	/** Something that runs events and can be paused (SIGSTOP, a GC pause) or die. */
	static final class Actor {

		final String name;

		boolean paused;

		boolean dead;

		/** When it last resumed from a pause. */
		long resumedAt = -1;

		private final List<Event> deferred = new ArrayList<>();

		Actor(String name) {
			this.name = name;
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

	/**
	 * One scheduled event; also the {@link Future} and Netty {@link Timeout}.
	 */
	final class Event implements Future<Object>, Timeout {

		/** Moved when a paused actor resumes (the event is then out of the queue). */
		long time;

		long seq;

		final Actor actor;

		private final Runnable task;

		private final TimerTask timerTask;

		private boolean cancelled;

		private boolean done;

		Event(long time, long seq, Actor actor, Runnable task, TimerTask timerTask) {
			this.time = time;
			this.seq = seq;
			this.actor = actor;
			this.task = task;
			this.timerTask = timerTask;
		}

		int order(Event other) {
			int byTime = Long.compare(this.time, other.time);
			return (byTime != 0) ? byTime : Long.compare(this.seq, other.seq);
		}

		void run() {
			this.done = true;
			if (this.timerTask != null) {
				try {
					this.timerTask.run(this);
				}
				catch (RuntimeException ex) {
					throw ex;
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			}
			else {
				this.task.run();
			}
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			return cancel();
		}

		@Override
		public boolean cancel() {
			if (this.done || this.cancelled) {
				return false;
			}
			this.cancelled = true;
			SimLoop.this.cancelledInQueue++;
			return true;
		}

		@Override
		public boolean isCancelled() {
			return this.cancelled;
		}

		@Override
		public boolean isDone() {
			return this.done || this.cancelled;
		}

		@Override
		public boolean isExpired() {
			return this.done;
		}

		@Override
		public Object get() {
			return null;
		}

		@Override
		public Object get(long timeout, TimeUnit unit) {
			return null;
		}

		@Override
		public Timer timer() {
			return null;
		}

		@Override
		public TimerTask task() {
			return this.timerTask;
		}

	}

	final Random random;

	private final PriorityQueue<Event> queue = new PriorityQueue<>(Event::order);

	private long now;

	private long seq;

	private long events;

	/** FNV-1a over every trace line. */
	private long traceHash = 0xcbf29ce484222325L;

	private final long[] tailTimes = new long[TRACE_TAIL];

	private final String[] tailLines = new String[TRACE_TAIL];

	private int tailNext;

	/** Every line, when the whole trace is kept; else null. */
	private final List<String> all;

	/** Run after every event (the invariant checks); may be null. */
	private Runnable afterEach;

	/**
	 * Events run at one instant before the loop calls it a busy loop: work that
	 * reschedules itself at once, without waiting for anything, burns a real thread the
	 * same way.
	 */
	static final int BUSY_LOOP = 10_000;

	private long sameInstant;

	/** Cancelled events still in the queue: purged when they are most of it. */
	private int cancelledInQueue;

	/** Set to stop the run at once (a violation). */
	private boolean stopped;

	SimLoop(long seed, boolean keepWholeTrace) {
		this.random = new Random(seed);
		this.all = keepWholeTrace ? new ArrayList<>() : null;
	}

	/** True virtual time, in nanoseconds since the start of the run. */
	long now() {
		return this.now;
	}

	long events() {
		return this.events;
	}

	void afterEach(Runnable check) {
		this.afterEach = check;
	}

	void stop() {
		this.stopped = true;
	}

	boolean isStopped() {
		return this.stopped;
	}

	/** Run {@code task} after {@code delayNanos} of true time, as {@code actor}. */
	Event at(long delayNanos, Actor actor, Runnable task) {
		Event event = new Event(this.now + Math.max(0, delayNanos), this.seq++, actor, task, null);
		this.queue.add(event);
		return event;
	}

	/** A Netty-style timer event. */
	Event timeout(long delayNanos, Actor actor, TimerTask task) {
		Event event = new Event(this.now + Math.max(0, delayNanos), this.seq++, actor, null, task);
		this.queue.add(event);
		return event;
	}

	/** Pause an actor: its events wait until {@link #resume}. */
	void pause(Actor actor) {
		actor.paused = true;
	}

	/** Resume an actor: the events it missed run now, in their order. */
	void resume(Actor actor) {
		actor.paused = false;
		actor.resumedAt = this.now;
		for (Event event : actor.deferred) {
			event.time = this.now;
			event.seq = this.seq++;
			this.queue.add(event);
		}
		actor.deferred.clear();
	}

	/**
	 * Run events until none is left, the time passes {@code until}, or the run is
	 * stopped.
	 */
	void runUntil(long until) {
		while (!this.stopped) {
			Event event = this.queue.peek();
			if (event == null || event.time > until) {
				this.now = Math.max(this.now, until);
				return;
			}
			this.queue.poll();
			if (event.cancelled) {
				this.cancelledInQueue--;
				continue;
			}
			if (this.cancelledInQueue > 1024 && this.cancelledInQueue > this.queue.size() / 2) {
				this.queue.removeIf((e) -> e.cancelled);
				this.cancelledInQueue = 0;
			}
			this.sameInstant = (event.time == this.now) ? this.sameInstant + 1 : 0;
			if (this.sameInstant > BUSY_LOOP) {
				throw new IllegalStateException(
						"busy loop: " + BUSY_LOOP + " events at one instant without time " + "passing, the last one "
								+ ((event.task != null) ? event.task.getClass().getName() : "a timer"));
			}
			this.now = event.time;
			Actor actor = event.actor;
			if (actor != null) {
				if (actor.dead) {
					continue;
				}
				if (actor.paused) {
					actor.deferred.add(event);
					continue;
				}
			}
			this.events++;
			event.run();
			if (this.afterEach != null) {
				this.afterEach.run();
			}
		}
	}

	/** Add a line to the trace, stamped with the true time in microseconds. */
	void trace(String line) {
		long micros = this.now / 1000;
		long hash = this.traceHash;
		hash = (hash ^ micros) * 0x100000001b3L;
		for (int i = 0; i < line.length(); i++) {
			hash = (hash ^ line.charAt(i)) * 0x100000001b3L;
		}
		this.traceHash = hash;
		if (this.all != null) {
			this.all.add(stamp(micros, line));
		}
		this.tailTimes[this.tailNext] = micros;
		this.tailLines[this.tailNext] = line;
		this.tailNext = (this.tailNext + 1) % TRACE_TAIL;
	}

	private static String stamp(long micros, String line) {
		return (micros / 1000) + "." + (char) ('0' + micros % 1000 / 100) + (char) ('0' + micros % 100 / 10)
				+ (char) ('0' + micros % 10) + " " + line;
	}

	long traceHash() {
		return this.traceHash;
	}

	/** The last lines of the trace. */
	List<String> tail() {
		List<String> lines = new ArrayList<>(TRACE_TAIL);
		for (int i = 0; i < TRACE_TAIL; i++) {
			int at = (this.tailNext + i) % TRACE_TAIL;
			if (this.tailLines[at] != null) {
				lines.add(stamp(this.tailTimes[at], this.tailLines[at]));
			}
		}
		return lines;
	}

	/** Every line, if kept. */
	List<String> wholeTrace() {
		return (this.all != null) ? List.copyOf(this.all) : List.of();
	}

}
