package io.quorumlock.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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

import io.quorumlock.bench.candidates.Candidate;
import io.quorumlock.bench.candidates.LockClient;

/**
 * 16 threads sharing one client on {@value #KEYS} keys, four threads a key, so that
 * shared holds of a key overlap and the permits of a key ({@link Candidate#PERMITS}) are
 * sometimes all taken: acquire + release pairs per second on 1, 3 or 5 nodes. A caller
 * may wait ({@link LockClient#WAIT}) for a permit; a refusal is counted as an error.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(16)
public class SharedThroughputBenchmark {

	/** Keys shared by the threads. */
	static final int KEYS = 4;

	/** The candidate id (see {@link Candidate}). */
	@Param("quorumlock-shared")
	public String candidate;

	/** Number of Redis masters. */
	@Param("1")
	public int nodes;

	private LockClient client;

	private final Runnable body = () -> {
	};

	/** Open the candidate. */
	@Setup(Level.Trial)
	public void open() {
		Errors.reset();
		this.client = Candidate.of(this.candidate).open(BenchNodes.first(this.nodes));
	}

	/** Close the candidate and report its errors. */
	@TearDown(Level.Trial)
	public void close() {
		this.client.close();
		Errors.print("shared-throughput candidate=" + this.candidate + " nodes=" + this.nodes);
	}

	/**
	 * Acquire and release this thread's key; a refusal or an error is counted, not
	 * thrown.
	 * @param key this thread's key
	 * @throws Exception from the client
	 */
	@Benchmark
	public void fewKeys(ThreadKey key) throws Exception {
		try {
			if (!this.client.withLock(key.value, true, this.body)) {
				Errors.record("acquisition of " + key.value + " refused after " + LockClient.WAIT);
			}
		}
		catch (RuntimeException ex) {
			Errors.record(ex);
		}
	}

	/** One of the {@value #KEYS} keys per thread, taken in turn. */
	@State(Scope.Thread)
	public static class ThreadKey {

		private static final AtomicInteger next = new AtomicInteger();

		String value;

		/**
		 * Pick this thread's key.
		 * @param benchmark the benchmark, for its candidate
		 */
		@Setup(Level.Trial)
		public void pick(SharedThroughputBenchmark benchmark) {
			this.value = BenchNodes.key("shared-throughput", benchmark.candidate) + ":"
					+ (next.getAndIncrement() % KEYS);
		}

	}

}
