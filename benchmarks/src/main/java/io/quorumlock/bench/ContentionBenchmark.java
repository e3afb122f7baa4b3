package io.quorumlock.bench;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.results.AggregationPolicy;

import io.quorumlock.bench.candidates.Candidate;
import io.quorumlock.bench.candidates.LockClient;

/**
 * Four threads fighting over one key, each waiting up to 10 s per attempt, with an empty
 * critical section: handovers per second (JMH's score), and per iteration the waits (call
 * to entry), fairness and each thread's operations as secondary results (see
 * {@link Stats}).
 * <ul>
 * <li>{@link #oneClient}: the four threads share one client, as threads of one process
 * do;</li>
 * <li>{@link #fourClients}: each thread opens its own client, on its own connections,
 * standing for four processes.</li>
 * </ul>
 * A counter that only the holder may touch checks mutual exclusion within this JVM; a
 * violation fails the run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(4)
public class ContentionBenchmark {

	/** The candidate id (see {@link Candidate}). */
	@Param("quorumlock")
	public String candidate;

	/** Number of Redis masters. */
	@Param("1")
	public int nodes;

	String key;

	/** Pick the contended key. */
	@Setup(Level.Trial)
	public void pick() {
		Errors.reset();
		this.key = BenchNodes.key("contention", this.candidate);
	}

	/**
	 * One client shared by the four threads.
	 * @param client the shared client
	 * @param waiter this thread's statistics
	 * @throws Exception from the client
	 */
	@Benchmark
	public void oneClient(SharedClient client, Waiter waiter) throws Exception {
		waiter.attempt(client.client, this.key);
	}

	/**
	 * One client per thread, as four processes.
	 * @param client this thread's client
	 * @param waiter this thread's statistics
	 * @throws Exception from the client
	 */
	@Benchmark
	public void fourClients(OwnClient client, Waiter waiter) throws Exception {
		waiter.attempt(client.client, this.key);
	}

	/** A client for all threads. */
	@State(Scope.Benchmark)
	public static class SharedClient {

		LockClient client;

		/**
		 * Open it.
		 * @param benchmark for the candidate and nodes
		 */
		@Setup(Level.Trial)
		public void open(ContentionBenchmark benchmark) {
			this.client = Candidate.of(benchmark.candidate).open(BenchNodes.first(benchmark.nodes));
		}

		/** Close it. */
		@TearDown(Level.Trial)
		public void close() {
			this.client.close();
		}

	}

	/** A client for this thread only. */
	@State(Scope.Thread)
	public static class OwnClient extends SharedClient {

	}

	/** One thread's operations and waits in the current iteration. */
	@State(Scope.Thread)
	public static class Waiter implements Runnable {

		private final long[] waits = new long[1 << 20];

		private int recorded;

		private long ops;

		private long timeouts;

		private long started;

		private Stats stats;

		/**
		 * Join the statistics.
		 * @param stats the shared statistics
		 */
		@Setup(Level.Trial)
		public void join(Stats stats) {
			this.stats = stats;
			stats.waiters.add(this);
		}

		/** Start the iteration from zero. */
		@Setup(Level.Iteration)
		public void reset() {
			this.recorded = 0;
			this.ops = 0;
			this.timeouts = 0;
		}

		void attempt(LockClient client, String key) throws Exception {
			this.started = System.nanoTime();
			try {
				if (!client.withLock(key, true, this)) {
					this.timeouts++;
					Errors.record("not acquired within " + LockClient.WAIT.toMillis() + " ms");
				}
			}
			catch (RuntimeException ex) {
				Errors.record(ex);
			}
		}

		/** The critical section: record the wait, check exclusion. */
		@Override
		public void run() {
			long waited = System.nanoTime() - this.started;
			if (this.recorded < this.waits.length) {
				this.waits[this.recorded++] = waited;
			}
			this.ops++;
			if (this.stats.inside.incrementAndGet() != 1) {
				this.stats.violations.incrementAndGet();
			}
			this.stats.inside.decrementAndGet();
		}

	}

	/**
	 * What the threads recorded in the iteration, reported through {@link BenchProfiler}:
	 * the waits' percentiles and maximum, fairness, timeouts and each thread's
	 * operations. Fails the run if two holders were ever inside the critical section at
	 * once.
	 */
	@State(Scope.Benchmark)
	public static class Stats {

		final List<Waiter> waiters = new CopyOnWriteArrayList<>();

		final AtomicInteger inside = new AtomicInteger();

		final AtomicLong violations = new AtomicLong();

		/** Check mutual exclusion and report the iteration. */
		@TearDown(Level.Iteration)
		public void report() {
			if (this.violations.get() > 0) {
				throw new IllegalStateException("mutual exclusion violated " + this.violations.get()
						+ " time(s): two holders were inside the critical section at once");
			}
			int total = 0;
			for (Waiter waiter : this.waiters) {
				total += waiter.recorded;
			}
			long[] waits = new long[total];
			long[] ops = new long[this.waiters.size()];
			long timeouts = 0;
			int at = 0;
			for (int i = 0; i < ops.length; i++) {
				Waiter waiter = this.waiters.get(i);
				System.arraycopy(waiter.waits, 0, waits, at, waiter.recorded);
				at += waiter.recorded;
				ops[i] = waiter.ops;
				timeouts += waiter.timeouts;
				BenchProfiler.report("ops.thread" + i, waiter.ops, "#", AggregationPolicy.SUM);
			}
			Arrays.sort(waits);
			long min = Arrays.stream(ops).min().orElse(0);
			long max = Arrays.stream(ops).max().orElse(0);
			BenchProfiler.report("fairness", (max == 0) ? 0.0 : (double) min / max, "min/max");
			BenchProfiler.report("wait.p50", micros(waits, 0.50), "us");
			BenchProfiler.report("wait.p99", micros(waits, 0.99), "us");
			BenchProfiler.report("wait.p99.9", micros(waits, 0.999), "us");
			BenchProfiler.report("wait.max", (waits.length == 0) ? 0.0 : waits[waits.length - 1] / 1000.0, "us",
					AggregationPolicy.MAX);
			BenchProfiler.report("timeouts", timeouts, "#", AggregationPolicy.SUM);
			System.out.println("[contention] operations per thread " + Arrays.toString(ops) + ", " + Errors.describe());
		}

		private static double micros(long[] sorted, double quantile) {
			if (sorted.length == 0) {
				return 0;
			}
			int index = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
			return sorted[Math.max(0, index)] / 1000.0;
		}

	}

}
