package io.quorumlock.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import io.quorumlock.bench.candidates.Candidate;
import io.quorumlock.bench.candidates.LockClient;

/**
 * Four threads fighting over one key, each waiting up to 10 s per attempt, with an empty
 * critical section: handovers per second (JMH's score), and per thread the operations and
 * every wait (call to entry), gathered over the measurement iterations and written to the
 * file named by {@value #STATS_PROPERTY} (one line per trial) and to standard output.
 * <ul>
 * <li>{@link #oneClient}: the four threads share one client, as threads of one process
 * do;</li>
 * <li>{@link #fourClients}: each thread opens its own client, on its own connections,
 * standing for four processes.</li>
 * </ul>
 * A counter that only the holder may touch checks mutual exclusion within this JVM.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(4)
public class ContentionBenchmark {

	/** System property: file to append each trial's per-thread statistics to. */
	public static final String STATS_PROPERTY = "bench.stats";

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

	/** Everything the threads recorded, over the measurement iterations. */
	@State(Scope.Benchmark)
	public static class Stats {

		final List<Waiter> waiters = new CopyOnWriteArrayList<>();

		final AtomicInteger inside = new AtomicInteger();

		final AtomicLong violations = new AtomicLong();

		private long[] opsPerThread;

		private long[] allWaits = new long[0];

		private long timeouts;

		private double seconds;

		/**
		 * Add a measurement iteration.
		 * @param iteration the iteration's parameters
		 */
		@TearDown(Level.Iteration)
		public void collect(IterationParams iteration) {
			if (iteration.getType() != IterationType.MEASUREMENT) {
				return;
			}
			if (this.opsPerThread == null) {
				this.opsPerThread = new long[this.waiters.size()];
			}
			int total = this.allWaits.length;
			for (Waiter waiter : this.waiters) {
				total += waiter.recorded;
			}
			long[] merged = Arrays.copyOf(this.allWaits, total);
			int at = this.allWaits.length;
			for (int i = 0; i < this.waiters.size(); i++) {
				Waiter waiter = this.waiters.get(i);
				this.opsPerThread[i] += waiter.ops;
				this.timeouts += waiter.timeouts;
				System.arraycopy(waiter.waits, 0, merged, at, waiter.recorded);
				at += waiter.recorded;
			}
			this.allWaits = merged;
			this.seconds += iteration.getTime().convertTo(TimeUnit.MILLISECONDS) / 1000.0;
		}

		/**
		 * Write this trial's line.
		 * @param params the benchmark's parameters
		 */
		@TearDown(Level.Trial)
		public void report(BenchmarkParams params) {
			if (this.opsPerThread == null) {
				return;
			}
			long[] waits = this.allWaits.clone();
			Arrays.sort(waits);
			long min = Arrays.stream(this.opsPerThread).min().orElse(0);
			long max = Arrays.stream(this.opsPerThread).max().orElse(0);
			String line = String.format(Locale.ROOT,
					"benchmark=%s candidate=%s nodes=%s seconds=%.3f ops=%s fairness=%.3f waitP50Us=%.1f waitP99Us=%.1f "
							+ "waitP999Us=%.1f waitMaxUs=%.1f timeouts=%d violations=%d",
					params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1),
					params.getParam("candidate"), params.getParam("nodes"), this.seconds,
					Arrays.toString(this.opsPerThread).replace(" ", ""), (max == 0) ? 0.0 : (double) min / max,
					micros(waits, 0.50), micros(waits, 0.99), micros(waits, 0.999),
					(waits.length == 0) ? 0.0 : waits[waits.length - 1] / 1000.0, this.timeouts, this.violations.get());
			Errors.write(line + " " + Errors.describe());
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
