package io.quorumlock.bench;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.bench.candidates.LockClient;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * Bytes allocated per uncontended lock + unlock of one key by one thread, by every thread
 * of the JVM (the caller's and Lettuce's I/O threads), as the benchmarks' request makes
 * it: a 30 s lease with renewal. Exact and independent of the machine's load, unlike
 * JMH's figure under load, where timed-out rounds add their exceptions; a generous node
 * timeout (2 s) keeps every round granted. Usage:
 * {@code AllocationCheck [nodes [warm-up ops [measured ops]]]} with {@code bench.nodes}
 * set; prints one {@code [allocation] key=value ...} line per measured batch (three).
 */
public final class AllocationCheck {

	private AllocationCheck() {
	}

	/**
	 * Run the check.
	 * @param args number of nodes (default 1), warm-up operations (default 30,000),
	 * operations per measured batch (default 20,000)
	 */
	public static void main(String[] args) {
		int nodes = (args.length > 0) ? Integer.parseInt(args[0]) : 1;
		int warmup = (args.length > 1) ? Integer.parseInt(args[1]) : 30_000;
		int ops = (args.length > 2) ? Integer.parseInt(args[2]) : 20_000;
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(BenchNodes.first(nodes))
			.rejoinDelay(Duration.ZERO)
			.nodeTimeout(Duration.ofSeconds(2))
			.build()) {
			String key = BenchNodes.key("allocation", "quorumlock");
			lockUnlock(engine, key, warmup);
			for (int batch = 0; batch < 3; batch++) {
				long[] ids = threads.getAllThreadIds();
				long before = sum(threads.getThreadAllocatedBytes(ids));
				long started = System.nanoTime();
				lockUnlock(engine, key, ops);
				long nanos = System.nanoTime() - started;
				long after = sum(threads.getThreadAllocatedBytes(ids));
				System.out.printf(Locale.ROOT, "[allocation] nodes=%d ops=%d bytesPerOp=%.0f meanUs=%.1f%n", nodes, ops,
						(after - before) / (double) ops, nanos / 1e3 / ops);
			}
		}
		// Lingering client threads must not keep the JVM.
		System.exit(0);
	}

	private static void lockUnlock(QuorumLockEngine engine, String key, int ops) {
		for (int i = 0; i < ops; i++) {
			Optional<Lease> lease = engine.tryAcquire(LockRequest.of(key).lease(LockClient.LEASE));
			lease.orElseThrow(() -> new IllegalStateException("uncontended lock of " + key + " refused")).release();
		}
	}

	/** A thread that has ended answers -1: left out. */
	private static long sum(long[] bytes) {
		long sum = 0;
		for (long b : bytes) {
			sum += Math.max(0, b);
		}
		return sum;
	}

}
