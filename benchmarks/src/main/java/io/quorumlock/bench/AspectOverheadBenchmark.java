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

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.bench.candidates.AspectContext;
import io.quorumlock.bench.candidates.LockClient;
import io.quorumlock.bench.candidates.StubRegistry;

/**
 * The aspect's own cost, without Redis: a call through {@code @DistributedLock} versus
 * the same lock + unlock written against the programmatic API, both on a registry that
 * grants at once ({@link StubRegistry}). {@code candidate} is {@code quorumlock}
 * (programmatic) or {@code quorumlock-aspect}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(1)
public class AspectOverheadBenchmark {

	/** {@code quorumlock} or {@code quorumlock-aspect}. */
	@Param("quorumlock-aspect")
	public String candidate;

	/** Unused: no Redis here (kept so that every benchmark takes the same parameters). */
	@Param("0")
	public int nodes;

	private final StubRegistry registry = new StubRegistry();

	private AspectContext context;

	private boolean annotated;

	private final Runnable body = () -> {
	};

	private final String key = "aspect-overhead";

	/** Start the context (also for the programmatic case, so both JVMs hold the same). */
	@Setup(Level.Trial)
	public void open() {
		Errors.reset();
		this.annotated = this.candidate.equals("quorumlock-aspect");
		this.context = AspectContext.open(StubRegistry.class, this.registry);
	}

	/** Close the context. */
	@TearDown(Level.Trial)
	public void close() {
		this.context.close();
		Errors.print("aspect candidate=" + this.candidate);
	}

	/**
	 * One locked call.
	 * @return whether it ran
	 */
	@Benchmark
	public boolean call() {
		if (this.annotated) {
			return this.context.service().once(this.key, this.body);
		}
		try (Lease lease = this.registry.acquire(LockRequest.of(this.key).lease(LockClient.LEASE))) {
			this.body.run();
			return true;
		}
	}

}
