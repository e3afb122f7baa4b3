package io.quorumlock.redis;

import java.lang.System.Logger.Level;
import java.util.Collections;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;

/**
 * A timing wheel for the per-round node-timeout deadlines and the leases' watchdog
 * timers. Every round of every acquisition and release arms one, as does every grant, and
 * almost always cancels it a millisecond later; on a {@code ScheduledThreadPoolExecutor}
 * each of those is a locked heap insert and removal that also wakes the scheduler thread
 * (the new deadline is the earliest task), which showed in profiles of the benchmarks.
 * Arming here is a lock-free enqueue and cancelling a CAS and an enqueue.
 * <p>
 * Its thread ticks every {@code tick} on a grid of the clock (tick {@code k} at
 * {@code k * tick}), so a deadline fires at its first tick at or after its time: at most
 * one tick late, and timers due within one tick of the grid fire together. Unlike Netty's
 * {@code HashedWheelTimer}, which ticks for as long as it runs, the thread parks while it
 * holds no live timer and is woken by the next one armed: an engine that holds no lease
 * and runs no round costs no wake-ups. While it holds few timers
 * ({@value #SKIP_AHEAD_LIMIT} or fewer), it sleeps through the ticks before the earliest
 * of them instead of waking at each, {@value #MAX_SKIP_TICKS} ticks at most (a coarse
 * wheel holding the next renewals of leases 10 s ahead wakes once a second, not ten
 * times), and a timer armed for a tick before the one it sleeps to wakes it. What it has
 * not yet taken in while it sleeps (timers armed for later, and cancellations) is
 * bounded: the {@value #WAKE_AFTER_QUEUED}th of them wakes it, so that a wheel asleep for
 * a second does not hold a second's worth of timers armed and cancelled in between (a
 * command timeout a command, a round deadline a round, a lease's renewal a lease); and a
 * cancelled timer lets go of its task at once.
 * <p>
 * Only the wheel's thread touches the buckets and {@link #live}; other threads hand it
 * timers and cancellations through two lock-free queues. A timer's state moves once, from
 * armed to either expired or cancelled, by CAS: a timer fires at most once, and never
 * after a cancel that returned true.
 */
final class Deadlines implements Timer, AutoCloseable {

	private static final System.Logger log = System.getLogger(Deadlines.class.getName());

	/** The rounds' resolution: a deadline fires between its time and one tick later. */
	static final long TICK_MILLIS = 5;

	private static final int ARMED = 0;

	private static final int CANCELLED = 1;

	private static final int EXPIRED = 2;

	private static final int WHEEL = 256;

	private static final AtomicIntegerFieldUpdater<Entry> STATE = AtomicIntegerFieldUpdater.newUpdater(Entry.class,
			"state");

	private final long tickNanos;

	private final Thread worker;

	/** The first entry of each bucket's doubly-linked list; the wheel's thread only. */
	private final Entry[] buckets = new Entry[WHEEL];

	private final Queue<Entry> added = new ConcurrentLinkedQueue<>();

	private final Queue<Entry> cancelled = new ConcurrentLinkedQueue<>();

	/** Timers in the buckets; the wheel's thread only. */
	private int live;

	/** The tick to expire next; the wheel's thread only. */
	private long current;

	/** At most this many live timers, the thread sleeps to the earliest one's tick. */
	static final int SKIP_AHEAD_LIMIT = 64;

	/** The most ticks the thread sleeps through at once. */
	static final int MAX_SKIP_TICKS = 10;

	/** Timers armed for later or cancelled while the thread sleeps that wake it. */
	static final int WAKE_AFTER_QUEUED = 256;

	/** {@link #sleepsTo} while the thread is awake. */
	private static final long AWAKE = Long.MIN_VALUE;

	/**
	 * The tick the wheel's thread is parked until, or about to park until
	 * ({@link Long#MAX_VALUE}: until woken, for want of timers); {@link #AWAKE}
	 * otherwise. Set by that thread before it checks the queues a last time; read by an
	 * arming thread after its enqueue, which wakes it for a tick before this one: one of
	 * the two sees the other's write, so no timer is left to fire late.
	 */
	private volatile long sleepsTo = AWAKE;

	/**
	 * Timers armed or cancelled while the thread sleeps, since it last took its queues
	 * in; the one that makes {@link #WAKE_AFTER_QUEUED} wakes it.
	 */
	private final AtomicInteger queuedAsleep = new AtomicInteger();

	/** The times the thread woke (a test's count of wake-ups). */
	private volatile long wakeUps;

	private volatile boolean closed;

	/**
	 * @param threadName the thread's name
	 * @param tickMillis the resolution
	 * @param register registers the thread as an engine thread
	 */
	Deadlines(String threadName, long tickMillis, UnaryOperator<Thread> register) {
		this.tickNanos = TimeUnit.MILLISECONDS.toNanos(tickMillis);
		Thread thread = new Thread(this::work, threadName);
		thread.setDaemon(true);
		this.worker = register.apply(thread);
		this.worker.start();
	}

	/**
	 * Run {@code task} on the wheel's thread after {@code delayNanos}, unless cancelled
	 * first; the task must not block.
	 * @throws IllegalStateException once closed
	 */
	Timeout after(long delayNanos, TimerTask task) {
		return at(System.nanoTime() + Math.max(0, delayNanos), task);
	}

	/**
	 * Run {@code task} on the wheel's thread at the first tick at or after
	 * {@code deadline} of {@link System#nanoTime()} (at once if it has passed), unless
	 * cancelled first; the task must not block.
	 * @throws IllegalStateException once closed
	 */
	Timeout at(long deadline, TimerTask task) {
		if (this.closed) {
			throw new IllegalStateException("the engine's timers are closed");
		}
		Entry entry = new Entry(task, deadline);
		this.added.add(entry);
		long asleepTo = this.sleepsTo;
		if (tickOf(deadline, this.tickNanos) < asleepTo) {
			LockSupport.unpark(this.worker);
		}
		else {
			queued(asleepTo);
		}
		return entry;
	}

	@Override
	public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
		return after(unit.toNanos(delay), task);
	}

	/** The resolution, in nanoseconds. */
	long tickNanos() {
		return this.tickNanos;
	}

	@Override
	public Set<Timeout> stop() {
		close();
		return Collections.emptySet();
	}

	/** Stop the thread; pending timers are dropped. */
	@Override
	public void close() {
		this.closed = true;
		LockSupport.unpark(this.worker);
	}

	private void work() {
		this.current = Math.floorDiv(System.nanoTime(), this.tickNanos);
		while (!this.closed) {
			transfer();
			if (this.live == 0) {
				sleepTo(Long.MAX_VALUE);
				// nothing in the buckets: start again from now
				this.current = Math.floorDiv(System.nanoTime(), this.tickNanos);
				continue;
			}
			// no live timer is due before this tick (those armed since are in the queue,
			// and wake the thread if they are due earlier)
			long next = (this.live <= SKIP_AHEAD_LIMIT)
					? Math.max(this.current, Math.min(this.current + MAX_SKIP_TICKS, earliestTick())) : this.current;
			long wait = next * this.tickNanos - System.nanoTime();
			if (wait > 0) {
				if (next == this.current) {
					// to the next tick, as a wheel that ticks waits: what is armed
					// meanwhile fires at that tick at the earliest, and the queues
					// hold a tick's worth
					LockSupport.parkNanos(this, wait);
				}
				else {
					sleepTo(next);
				}
				continue; // woken at that tick or early (a timer, close): look again
			}
			// the ticks before it are empty: skipped, not expired one by one
			this.current = next;
			expire(this.current);
			this.current++;
		}
	}

	/**
	 * Park until the time of {@code tick} ({@link Long#MAX_VALUE}: until woken), unless a
	 * timer or a cancellation is queued, a timer due earlier is armed or the wheel
	 * closes.
	 */
	private void sleepTo(long tick) {
		this.sleepsTo = tick;
		if (this.added.isEmpty() && this.cancelled.isEmpty() && !this.closed) {
			if (tick == Long.MAX_VALUE) {
				LockSupport.park(this);
			}
			else {
				long wait = tick * this.tickNanos - System.nanoTime();
				if (wait > 0) {
					LockSupport.parkNanos(this, wait);
				}
			}
		}
		this.sleepsTo = AWAKE;
		this.wakeUps++; // the wheel's thread only
	}

	/**
	 * The least tick of the live timers (there is one): a walk of every bucket, done only
	 * while they are few.
	 */
	private long earliestTick() {
		long least = Long.MAX_VALUE;
		for (Entry head : this.buckets) {
			for (Entry entry = head; entry != null; entry = entry.next) {
				least = Math.min(least, entry.tick);
			}
		}
		return least;
	}

	/** How many times the wheel's thread has woken so far. */
	long wakeUps() {
		return this.wakeUps;
	}

	/**
	 * One more timer queued, with the thread asleep to {@code asleepTo} as its queuer
	 * read it: counted only while the thread sleeps, and the last the queues may hold
	 * then wakes it.
	 */
	private void queued(long asleepTo) {
		if (asleepTo != AWAKE && this.queuedAsleep.incrementAndGet() == WAKE_AFTER_QUEUED) {
			LockSupport.unpark(this.worker);
		}
	}

	/** Move armed timers into their buckets and unlink cancelled ones. */
	private void transfer() {
		this.queuedAsleep.set(0);
		for (Entry entry = this.cancelled.poll(); entry != null; entry = this.cancelled.poll()) {
			if (entry.linked) {
				unlink(entry);
			}
		}
		for (Entry entry = this.added.poll(); entry != null; entry = this.added.poll()) {
			if (entry.state != ARMED) {
				continue;
			}
			// the first tick at or after the deadline, and none already passed
			entry.tick = Math.max(tickOf(entry.deadline, this.tickNanos), this.current);
			int index = (int) (entry.tick & (WHEEL - 1));
			Entry head = this.buckets[index];
			entry.next = head;
			if (head != null) {
				head.prev = entry;
			}
			this.buckets[index] = entry;
			entry.linked = true;
			this.live++;
		}
	}

	/** The first tick at or after {@code deadline}: the tick itself for one on a tick. */
	static long tickOf(long deadline, long tickNanos) {
		return -Math.floorDiv(-deadline, tickNanos);
	}

	/** Fire the timers of {@code tick} and of any tick before it in the same bucket. */
	private void expire(long tick) {
		int index = (int) (tick & (WHEEL - 1));
		Entry entry = this.buckets[index];
		while (entry != null) {
			Entry next = entry.next;
			if (entry.tick <= tick) {
				unlink(entry);
				if (STATE.compareAndSet(entry, ARMED, EXPIRED)) {
					try {
						entry.task.run(entry);
					}
					catch (Throwable ex) {
						log.log(Level.WARNING, "a timer task failed", ex);
					}
				}
			}
			entry = next;
		}
	}

	private void unlink(Entry entry) {
		int index = (int) (entry.tick & (WHEEL - 1));
		if (entry.prev != null) {
			entry.prev.next = entry.next;
		}
		else {
			this.buckets[index] = entry.next;
		}
		if (entry.next != null) {
			entry.next.prev = entry.prev;
		}
		entry.prev = null;
		entry.next = null;
		entry.linked = false;
		this.live--;
	}

	/** One timer: armed, then expired or cancelled, once. */
	private final class Entry implements Timeout {

		/**
		 * Null once cancelled: a cancelled timer stays in the queues until the wheel's
		 * thread takes it in, and what its task holds (a lease, a round, a command) need
		 * not stay with it. Read by the wheel's thread only after its own CAS from armed
		 * to expired, which a cancel (the only writer) can no longer follow.
		 */
		private TimerTask task;

		private final long deadline;

		private volatile int state = ARMED;

		// the wheel's thread only

		private long tick;

		private Entry prev;

		private Entry next;

		private boolean linked;

		Entry(TimerTask task, long deadline) {
			this.task = task;
			this.deadline = deadline;
		}

		@Override
		public Timer timer() {
			return Deadlines.this;
		}

		/** The task; null once the timer is cancelled. */
		@Override
		public TimerTask task() {
			return this.task;
		}

		@Override
		public boolean isExpired() {
			return this.state == EXPIRED;
		}

		@Override
		public boolean isCancelled() {
			return this.state == CANCELLED;
		}

		@Override
		public boolean cancel() {
			if (!STATE.compareAndSet(this, ARMED, CANCELLED)) {
				return false;
			}
			this.task = null;
			// unlinked by the wheel's thread, so that a cancelled timer is not kept
			// until its tick; one still in the added queue is skipped there
			Deadlines.this.cancelled.add(this);
			Deadlines.this.queued(Deadlines.this.sleepsTo);
			return true;
		}

	}

}
