package io.quorumlock.redis.node;

import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;

/**
 * {@link Timers} on a fake clock: nothing runs until the test {@link #advance advances}
 * the clock (or {@link #runDue() runs what is due}), and then on the test's thread, in
 * order of due time.
 */
public final class ManualTimers implements Timers {

	private final PriorityQueue<Task> tasks = new PriorityQueue<>();

	private long now = 1_000_000_000L;

	private long sequence;

	private long retryDelayNanos = TimeUnit.MILLISECONDS.toNanos(20);

	/**
	 * A task due at a time; also the {@link Future} and {@link Timeout} that cancel it.
	 */
	private final class Task extends CompletableFuture<Void> implements Comparable<Task>, Timeout {

		private final long due;

		private final long order = ManualTimers.this.sequence++;

		private final Runnable body;

		private final TimerTask timerTask;

		Task(long due, Runnable body, TimerTask timerTask) {
			this.due = due;
			this.body = body;
			this.timerTask = timerTask;
		}

		@Override
		public int compareTo(Task other) {
			int byDue = Long.compare(this.due, other.due);
			return (byDue != 0) ? byDue : Long.compare(this.order, other.order);
		}

		void run() throws Exception {
			if (this.body != null) {
				this.body.run();
			}
			else {
				this.timerTask.run(this);
			}
			complete(null);
		}

		@Override
		public Timer timer() {
			return null;
		}

		@Override
		public TimerTask task() {
			return this.timerTask;
		}

		@Override
		public boolean isExpired() {
			return isDone() && !isCancelled();
		}

		@Override
		public boolean cancel() {
			return cancel(false);
		}

	}

	/** Nanoseconds the clock moves on at each read: 0 unless a test sets it. */
	private long movesPerRead;

	@Override
	public long nanoTime() {
		long read = this.now;
		this.now += this.movesPerRead;
		return read;
	}

	/**
	 * Let the clock move on by {@code nanos} at every read, as a real clock does between
	 * two reads: a delay measured from one read then ends after a deadline taken from an
	 * earlier one.
	 */
	public void movePerRead(long nanos) {
		this.movesPerRead = nanos;
	}

	/** Move the clock on to {@code time}, running every task due by then. */
	public void advanceTo(long time) {
		advance(time - this.now);
	}

	@Override
	public long retryDelayNanos() {
		return this.retryDelayNanos;
	}

	public void retryDelayNanos(long nanos) {
		this.retryDelayNanos = nanos;
	}

	@Override
	public Future<?> schedule(Runnable task, long delayNanos) {
		Task scheduled = new Task(this.now + Math.max(0, delayNanos), task, null);
		this.tasks.add(scheduled);
		return scheduled;
	}

	@Override
	public void execute(Runnable task) {
		schedule(task, 0);
	}

	@Override
	public void runOnScheduler(Runnable task) {
		schedule(task, 0);
	}

	@Override
	public Timeout after(long delayNanos, TimerTask task) {
		Task scheduled = new Task(this.now + Math.max(0, delayNanos), null, task);
		this.tasks.add(scheduled);
		return scheduled;
	}

	@Override
	public Timeout at(long deadline, TimerTask task) {
		Task scheduled = new Task(Math.max(this.now, deadline), null, task);
		this.tasks.add(scheduled);
		return scheduled;
	}

	@Override
	public Timeout coarseAt(long deadline, TimerTask task) {
		return at(deadline, task);
	}

	/** Move the clock on, running every task that falls due, in order. */
	public void advance(long nanos) {
		long until = this.now + nanos;
		while (true) {
			Task next = this.tasks.peek();
			if (next == null || next.due > until) {
				break;
			}
			this.tasks.poll();
			if (next.isDone()) {
				continue;
			}
			this.now = Math.max(this.now, next.due);
			try {
				next.run();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}
		this.now = until;
	}

	public void advanceMillis(long millis) {
		advance(TimeUnit.MILLISECONDS.toNanos(millis));
	}

	/** Run what is due now, including what that schedules for now. */
	public void runDue() {
		advance(0);
	}

	/** Tasks neither run nor cancelled. */
	public long pending() {
		return this.tasks.stream().filter((task) -> !task.isDone()).count();
	}

}
