package io.quorumlock.bench;

import java.util.concurrent.TimeUnit;

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
 * Uncontended lock + unlock of one key by one thread: the latency distribution
 * (p50/p99/p99.9 from JMH's sample-time histogram) on 1, 3 or 5 nodes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
public class LatencyBenchmark {

	/** The candidate id (see {@link Candidate}). */
	@Param("quorumlock")
	public String candidate;

	/** Number of Redis masters. */
	@Param("1")
	public int nodes;

	private LockClient client;

	private String key;

	private final Runnable body = () -> {
	};

	/** Open the candidate. */
	@Setup(Level.Trial)
	public void open() {
		Errors.reset();
		this.client = Candidate.of(this.candidate).open(BenchNodes.first(this.nodes));
		this.key = BenchNodes.key("latency", this.candidate);
	}

	/** Close the candidate and report its errors. */
	@TearDown(Level.Trial)
	public void close() {
		this.client.close();
		Errors.print("latency candidate=" + this.candidate + " nodes=" + this.nodes);
	}

	/**
	 * Lock, run nothing, unlock; a refusal or an error is counted, not thrown.
	 * @throws Exception from the client
	 */
	@Benchmark
	public void lockUnlock() throws Exception {
		try {
			if (!this.client.withLock(this.key, false, this.body)) {
				Errors.record("uncontended lock of " + this.key + " refused");
			}
		}
		catch (RuntimeException ex) {
			Errors.record(ex);
		}
	}

}
