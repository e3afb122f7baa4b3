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
 * 16 threads sharing one client, each locking and unlocking its own key: lock + unlock
 * pairs per second on 1, 3 or 5 nodes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(16)
public class ThroughputBenchmark {

	/** The candidate id (see {@link Candidate}). */
	@Param("quorumlock")
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
		Errors.print("throughput candidate=" + this.candidate + " nodes=" + this.nodes);
	}

	/**
	 * Lock and unlock this thread's key; a refusal or an error is counted, not thrown.
	 * @param key this thread's key
	 * @throws Exception from the client
	 */
	@Benchmark
	public void distinctKeys(ThreadKey key) throws Exception {
		try {
			if (!this.client.withLock(key.value, false, this.body)) {
				Errors.record("uncontended lock of " + key.value + " refused");
			}
		}
		catch (RuntimeException ex) {
			Errors.record(ex);
		}
	}

	/** One key per thread. */
	@State(Scope.Thread)
	public static class ThreadKey {

		private static final AtomicInteger next = new AtomicInteger();

		String value;

		/**
		 * Pick this thread's key.
		 * @param benchmark the benchmark, for its candidate
		 */
		@Setup(Level.Trial)
		public void pick(ThroughputBenchmark benchmark) {
			this.value = BenchNodes.key("throughput", benchmark.candidate) + ":" + next.incrementAndGet();
		}

	}

}
