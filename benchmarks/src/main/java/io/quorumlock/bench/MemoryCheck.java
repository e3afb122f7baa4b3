package io.quorumlock.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.quorumlock.LockRequest;
import io.quorumlock.bench.candidates.LockClient;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * Retained heap after locking and releasing many distinct keys with quorumlock: heap used
 * after {@code System.gc()} (via {@link MemoryMXBean}) before and after, with a warm-up
 * first so that class loading and connection buffers count in the baseline. The keys are
 * locked through {@code acquireAsync} and released at once, 64 in flight. Usage:
 * {@code MemoryCheck [keys [nodes]]}; prints one {@code [memory] key=value ...} line.
 */
public final class MemoryCheck {

	private static final int IN_FLIGHT = 64;

	private MemoryCheck() {
	}

	/**
	 * Run the check.
	 * @param args number of keys (default 1,000,000), number of nodes (default 1)
	 * @throws Exception on failure
	 */
	public static void main(String[] args) throws Exception {
		int keys = (args.length > 0) ? Integer.parseInt(args[0]) : 1_000_000;
		int nodes = (args.length > 1) ? Integer.parseInt(args[1]) : 1;
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(BenchNodes.first(nodes))
			.rejoinDelay(Duration.ZERO)
			.build()) {
			// warm up one at a time first: a cold JVM may miss the 50 ms node timeout
			for (int i = 0; i < 2_000; i++) {
				engine.acquire(LockRequest.of("memory-warmup:" + i).lease(LockClient.LEASE)).release();
			}
			lockAndRelease(engine, "memory-warmup:", Math.min(keys, 20_000));
			long before = retainedHeap();
			long started = System.nanoTime();
			long failed = lockAndRelease(engine, "memory:", keys);
			double seconds = (System.nanoTime() - started) / 1e9;
			long after = retainedHeap();
			long left = keysLeft(BenchNodes.first(1).get(0), "lock:{memory:*");
			System.out.println(String.format(Locale.ROOT,
					"[memory] keys=%d nodes=%d seconds=%.1f opsPerSecond=%.0f beforeBytes=%d afterBytes=%d "
							+ "retainedBytes=%d keysLeft=%d failedOps=%d",
					keys, nodes, seconds, keys / seconds, before, after, after - before, left, failed));
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
