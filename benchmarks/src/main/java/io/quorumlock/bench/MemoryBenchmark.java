package io.quorumlock.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

import io.quorumlock.LockRequest;
import io.quorumlock.bench.candidates.LockClient;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * Retained heap after locking and releasing many distinct keys with quorumlock, one shot
 * per fork: heap used after {@code System.gc()} (via {@link MemoryMXBean}) before and
 * after, with a warm-up first so that class loading and connection buffers count in the
 * baseline. The keys are locked through {@code acquireAsync} and released at once,
 * {@value #IN_FLIGHT} in flight. The score is the shot's time; the heap before and after,
 * the retained heap, the rate and the lock keys left in Redis are secondary results
 * ({@link BenchProfiler}). Run it with {@code -bm ss -wi 0 -i 1}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
public class MemoryBenchmark {

	private static final int IN_FLIGHT = 64;

	/** How many distinct keys to lock and release. */
	@Param("1000000")
	public int keys;

	/** Number of Redis masters. */
	@Param("1")
	public int nodes;

	/**
	 * Lock and release {@link #keys} distinct keys and measure the heap they leave.
	 * @throws Exception on failure
	 */
	@Benchmark
	public void distinctKeys() throws Exception {
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(BenchNodes.first(this.nodes))
			.rejoinDelay(Duration.ZERO)
			// the subject is the heap, not latency: with 64 in flight on a loaded
			// 2-core machine, the default 50 ms node timeout failed more than 1% of
			// the operations, and the run with them
			.nodeTimeout(Duration.ofSeconds(1))
			.build()) {
			// warm up one at a time first: a cold JVM may miss the 50 ms node timeout
			for (int i = 0; i < 2_000; i++) {
				engine.acquire(LockRequest.of("memory-warmup:" + i).lease(LockClient.LEASE)).release();
			}
			lockAndRelease(engine, "memory-warmup:", Math.min(this.keys, 20_000));
			long before = retainedHeap();
			long started = System.nanoTime();
			long failed = lockAndRelease(engine, "memory:", this.keys);
			double seconds = (System.nanoTime() - started) / 1e9;
			long after = retainedHeap();
			long left = keysLeft(BenchNodes.first(1).get(0), "lock:{memory:*");
			BenchProfiler.report("heap.before", before, "B");
			BenchProfiler.report("heap.after", after, "B");
			BenchProfiler.report("heap.retained", after - before, "B");
			BenchProfiler.report("keys.left", left, "#");
			BenchProfiler.report("keys.failed", failed, "#");
			BenchProfiler.report("keys.rate", this.keys / seconds, "ops/s");
		}
	}

	/**
	 * Lock and release {@code count} keys, {@value #IN_FLIGHT} in flight; an operation
	 * that fails is counted (nothing is held after it) and the run goes on.
	 */
	private static long lockAndRelease(QuorumLockEngine engine, String prefix, int count) throws Exception {
		Semaphore permits = new Semaphore(IN_FLIGHT);
		AtomicLong failed = new AtomicLong();
		AtomicReference<Throwable> first = new AtomicReference<>();
		for (int i = 0; i < count; i++) {
			permits.acquire();
			engine.acquireAsync(LockRequest.of(prefix + i).lease(LockClient.LEASE))
				.thenCompose((lease) -> lease.releaseAsync())
				.whenComplete((ok, error) -> {
					if (error != null) {
						failed.incrementAndGet();
						first.compareAndSet(null, error);
					}
					permits.release();
				});
		}
		permits.acquire(IN_FLIGHT);
		if (failed.get() > count / 100) {
			throw new IllegalStateException(failed.get() + " of " + count + " lock/release failed", first.get());
		}
		if (first.get() != null) {
			System.out.println("[memory] " + failed.get() + " of " + count + " failed, first: " + first.get());
		}
		return failed.get();
	}

	private static long retainedHeap() throws InterruptedException {
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		long used = Long.MAX_VALUE;
		for (int i = 0; i < 5; i++) {
			System.gc();
			Thread.sleep(200);
			used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
		}
		return used;
	}

	private static long keysLeft(String node, String pattern) {
		RedisClient client = RedisClient.create(node);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return connection.sync().keys(pattern).size();
		}
		finally {
			client.shutdown();
		}
	}

}
