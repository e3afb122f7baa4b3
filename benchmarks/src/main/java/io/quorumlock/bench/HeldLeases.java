package io.quorumlock.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;

/**
 * The scale scenario of many leases held at once: {@code HeldLeases candidate count
 * nodes leaseMs cycles}. Takes one lease held to the end (so that the client never holds
 * none, see {@code main}), warms up, takes {@code count} leases on distinct keys (256 in
 * flight), holds them unmeasured for as many renewal periods (lease/3) as
 * {@value #WARMUP_RENEWALS} renewals take (at least one, at most
 * {@value #MAX_WARMUP_PERIODS}), and for more while the JVM's JIT compilers are still at
 * work (more than {@value #QUIET_JIT_MS} ms of compilation in the last period; at most
 * {@value #MAX_WARMUP_PERIODS} in all; one period only with fewer than three
 * {@code cycles}, a smoke run), then for {@code cycles} renewal periods, the window, then
 * prints one {@code [scale]} line:
 * <ul>
 * <li>heap per held lease: retained heap (after {@code System.gc()}) holding them, minus
 * before taking them, divided by the count;</li>
 * <li>over the hold window: this JVM's CPU (less the validity sampler's own) and the
 * masters' CPU ({@code INFO cpu}) per renewed lease, the commands per second the masters
 * processed (those scripts call included) and the script calls (round trips) per renewed
 * lease; a renewed lease is one {@code PEXPIRE} at a node ({@code INFO commandstats}),
 * divided by the nodes;</li>
 * <li>renewals late or missed: leases lost ({@code LockListener.onLost}; quorumlock
 * only), the least remaining validity seen by a sampler every lease/6 (quorumlock only),
 * and, at the end, every key's {@code PTTL} on every node: keys gone ({@code lapsed}) or
 * below half the lease ({@code late});</li>
 * <li>mutual exclusion: a second client asks for 100 of the held keys, without waiting;
 * each grant is a violation;</li>
 * <li>the warm-up periods, and the JIT compilation time inside the window.</li>
 * </ul>
 */
final class HeldLeases {

	private static final int IN_FLIGHT = 256;

	private static final int PROBES = 100;

	private static final int PASSES = 10;

	/**
	 * Compilation in one renewal period under which the JIT counts as quiet: at 1,000
	 * leases a period's renewals take ~100 ms of CPU, and C2 still compiling them took
	 * several times that in each of the first periods.
	 */
	private static final long QUIET_JIT_MS = 50;

	/**
	 * Renewals before the window, whatever the count of leases: a client's loops over a
	 * batch of renewals reach the compilers' thresholds after some tens of thousands of
	 * them (at 10,000 leases, C2 compiled quorumlock's in the 7th and 8th periods, inside
	 * a window that began after 5), so that a window after fewer periods measures their
	 * compilation, not renewal.
	 */
	private static final int WARMUP_RENEWALS = 100_000;

	private static final int MAX_WARMUP_PERIODS = 12;

	/**
	 * The JIT compilers' threads (C1 and C2) in {@link ScaleSupport#threadCpuMsByKind}.
	 */
	private static final String COMPILERS = "C_CompilerThre";

	private HeldLeases() {
	}

	public static void main(String[] args) throws Exception {
		String candidate = args[0];
		int count = Integer.parseInt(args[1]);
		int nodes = Integer.parseInt(args[2]);
		Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
		int cycles = Integer.parseInt(args[4]);
		String prefix = BenchNodes.key("held", candidate) + ":";
		List<String> uris = BenchNodes.first(nodes);
		Map<String, Object> out = ScaleSupport.values();
		out.put("candidate", candidate);
		out.put("leases", count);
		out.put("nodes", nodes);
		out.put("leaseMs", lease.toMillis());
		try (HeldHolder holder = HeldHolder.open(candidate, uris, lease, prefix);
				RedisStats stats = new RedisStats(uris)) {
			// Held from before the warm-up to the end, so that the client never goes back
			// to holding nothing: Redisson's watchdog (3.52) starts another renewal timer
			// each time its held locks go from none to one while the last timer is still
			// pending, and the 500 one-at-a-time warm-ups below left ~500 timers renewing
			// every lock of the window ~500 times per period.
			Object anchor = holder.hold("anchor");
			for (int i = 0; i < 500; i++) {
				// one at a time first: a cold JVM may miss the 50 ms node timeout
				String name = "warmup-one:" + i;
				holder.release(holder.acquireAll(1, (n) -> name));
			}
			holder.release(holder.acquireAll(Math.min(count, 2_000), (i) -> "warmup:" + i));
			long heapBefore = ScaleSupport.retainedHeap();
			long started = System.nanoTime();
			int held = holder.acquireAll(count, Integer::toString);
			double acquireSeconds = (System.nanoTime() - started) / 1e9;
			long heapAfter = ScaleSupport.retainedHeap();
			out.put("acquirePerSecond", held / acquireSeconds);
			out.put("heapPerLeaseBytes", (double) (heapAfter - heapBefore) / held);

			long windowMs = cycles * lease.toMillis() / 3;
			// the sampler runs from the warm-up on, so that the compilation of what it
			// calls is done before the window (its own CPU in the window is left out)
			Sampler sampler = new Sampler(holder, lease.toMillis() / 6);
			sampler.start();
			// renewal periods unmeasured (see WARMUP_RENEWALS): the window measures
			// renewal as it goes on, not the first runs of a client's renewal code (its
			// JIT compilation and class loading took most of the CPU of a first period at
			// 1,000 and 10,000 leases)
			int leastPeriods = (cycles >= 3)
					? (int) Math.min(MAX_WARMUP_PERIODS, Math.max(1, (WARMUP_RENEWALS + count - 1) / count)) : 1;
			int warmupPeriods = warmUp(lease.toMillis() / 3, leastPeriods, (cycles >= 3) ? MAX_WARMUP_PERIODS : 1);
			out.put("warmupPeriods", warmupPeriods);
			long jitBefore = jitMs();
			RedisStats.Snapshot redisBefore = stats.snapshot();
			long renewedBefore = holder.renewed();
			Map<String, Long> errorsBefore = holder.nodeErrors();
			Map<String, Long> threadsBefore = ScaleSupport.threadCpuMsByKind();
			long cpuBefore = ScaleSupport.processCpuNanos();
			long samplerBefore = sampler.cpuNanos.get();
			sampler.resetMinimum();
			long windowStart = System.nanoTime();
			// for a profiler attached from outside (jcmd <pid> JVMTI.agent_load ...)
			System.err.println("[held] window of " + windowMs + " ms starts, pid " + ProcessHandle.current().pid()
					+ ", uptime " + ManagementFactory.getRuntimeMXBean().getUptime() + " ms");
			Thread.sleep(windowMs);
			System.err.println("[held] window ends, pid " + ProcessHandle.current().pid() + ", uptime "
					+ ManagementFactory.getRuntimeMXBean().getUptime() + " ms");
			sampler.stop();
			double windowSeconds = (System.nanoTime() - windowStart) / 1e9;
			out.put("jitMsInWindow", jitMs() - jitBefore);
			Map<String, Long> threadsAfter = ScaleSupport.threadCpuMsByKind();
			long jvmCpu = ScaleSupport.processCpuNanos() - cpuBefore - (sampler.cpuNanos.get() - samplerBefore);
			out.put("threadCpuMs", ScaleSupport.threadCpuDelta(threadsBefore, threadsAfter));
			long compilersMs = threadsAfter.getOrDefault(COMPILERS, 0L) - threadsBefore.getOrDefault(COMPILERS, 0L);
			RedisStats.Snapshot redis = stats.snapshot().minus(redisBefore);
			long renewed = holder.renewed() - renewedBefore;
			double pexpiresPerNode = (double) redis.pexpires() / nodes;
			// a renewal: what the client's listener counted, else one PEXPIRE per node
			double renewals = (holder.renewed() >= 0) ? renewed : pexpiresPerNode;
			double periods = windowSeconds * 3000.0 / lease.toMillis();
			out.put("windowSeconds", windowSeconds);
			out.put("renewals", renewals);
			out.put("pexpiresPerNodePerRenewal", pexpiresPerNode / Math.max(1, renewals));
			out.put("jvmCpuUsPerRenewal", jvmCpu / 1000.0 / Math.max(1, renewals));
			// the same less the JIT compilers' threads (their CPU, read from /proc): what
			// renewal costs once the code is compiled, which at 1,000 leases a window
			// after a minute or two of warm-up still is not
			out.put("jvmCpuUsPerRenewalLessJit", (jvmCpu / 1000.0 - compilersMs * 1000.0) / Math.max(1, renewals));
			out.put("redisCpuUsPerRenewal", redis.cpuSeconds() * 1e6 / Math.max(1, renewals));
			out.put("jvmCpuUsPerLeasePerPeriod", jvmCpu / 1000.0 / held / periods);
			out.put("redisCpuUsPerLeasePerPeriod", redis.cpuSeconds() * 1e6 / held / periods);
			out.put("redisCommandsPerSecond", redis.commands() / windowSeconds);
			out.put("scriptCallsPerRenewal", redis.scripts() / Math.max(1, renewals));
			out.put("lost", holder.lost());
			// node answers missed in the window (each costs its round a vote, and a
			// renewal short of its quorum a retry), by kind
			StringBuilder errors = new StringBuilder();
			holder.nodeErrors()
				.forEach((kind, n) -> errors.append(kind)
					.append(':')
					.append(n - errorsBefore.getOrDefault(kind, 0L))
					.append(';'));
			out.put("nodeErrors", (errors.length() == 0) ? "none" : errors.toString());
			out.put("minRemainingMs", sampler.minRemaining.get());
			long[] ttl = pttlScan(uris, holder, count, lease.toMillis());
			out.put("lapsed", ttl[0]);
			out.put("late", ttl[1]);
			out.put("minPttlMs", ttl[2]);
			int violations = 0;
			for (int p = 0; p < PROBES; p++) {
				violations += holder.probe(Integer.toString((int) ((long) p * count / PROBES))) ? 1 : 0;
			}
			out.put("probes", PROBES);
			out.put("violations", violations);
			holder.release(held);
			holder.release(anchor).toCompletableFuture().join();
		}
		ScaleSupport.emit(out);
		System.exit(0);
	}

	/**
	 * Hold for {@code least} renewal periods, then a period at a time while the last one
	 * took {@link #QUIET_JIT_MS} ms of compilation or more, {@code most} periods in all.
	 * @return the periods held
	 */
	private static int warmUp(long periodMs, int least, int most) throws InterruptedException {
		int periods = 0;
		long before;
		do {
			before = jitMs();
			Thread.sleep(periodMs);
			periods++;
		}
		while (periods < most && (periods < least || jitMs() - before >= QUIET_JIT_MS));
		return periods;
	}

	/** This JVM's JIT compilation time so far, in ms. */
	private static long jitMs() {
		CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
		return (jit != null && jit.isCompilationTimeMonitoringSupported()) ? jit.getTotalCompilationTime() : 0;
	}

	/**
	 * Every key's {@code PTTL} on every node, pipelined: keys gone, keys below half the
	 * lease, and the least TTL seen (ms).
	 */
	private static long[] pttlScan(List<String> uris, HeldHolder holder, int count, long leaseMs) {
		long gone = 0;
		long late = 0;
		long least = Long.MAX_VALUE;
		RedisClient client = RedisClient.create();
		try {
			for (String uri : uris) {
				try (StatefulRedisConnection<String, String> connection = client.connect(RedisURI.create(uri))) {
					RedisAsyncCommands<String, String> async = connection.async();
					for (int from = 0; from < count; from += 1_000) {
						List<RedisFuture<Long>> replies = new ArrayList<>();
						for (int i = from; i < Math.min(count, from + 1_000); i++) {
							replies.add(async.pttl(holder.redisKey(Integer.toString(i))));
						}
						LettuceFutures.awaitAll(30, TimeUnit.SECONDS, replies.toArray(new RedisFuture[0]));
						for (RedisFuture<Long> reply : replies) {
							long ttl = reply.toCompletableFuture().join();
							if (ttl < 0) {
								gone++;
							}
							else {
								late += (ttl < leaseMs / 2) ? 1 : 0;
								least = Math.min(least, ttl);
							}
						}
					}
				}
			}
		}
		finally {
			client.shutdown(0, 1, TimeUnit.SECONDS);
		}
		return new long[] { gone, late, (least == Long.MAX_VALUE) ? -1 : least };
	}

	/**
	 * Looks at every held lease's remaining validity every {@code periodMs}, keeping the
	 * least seen; its own CPU is left out of the JVM's figure.
	 */
	private static final class Sampler implements Runnable {

		final AtomicLong minRemaining = new AtomicLong(-1);

		final AtomicLong cpuNanos = new AtomicLong();

		private final HeldHolder holder;

		private final long periodMs;

		private final Thread thread = new Thread(this, "validity-sampler");

		private volatile boolean stopped;

		Sampler(HeldHolder holder, long periodMs) {
			this.holder = holder;
			this.periodMs = periodMs;
			this.thread.setDaemon(true);
		}

		void start() {
			this.thread.start();
		}

		/** Forget the least seen so far: the window's starts now. */
		void resetMinimum() {
			this.minRemaining.set(-1);
		}

		void stop() throws InterruptedException {
			this.stopped = true;
			this.thread.interrupt();
			this.thread.join(TimeUnit.SECONDS.toMillis(30));
		}

		@Override
		public void run() {
			long cpu = ScaleSupport.threadCpuNanos();
			while (!this.stopped) {
				long least = this.holder.leastRemainingMs();
				if (least >= 0 && (this.minRemaining.get() < 0 || least < this.minRemaining.get())) {
					this.minRemaining.set(least);
				}
				this.cpuNanos.set(ScaleSupport.threadCpuNanos() - cpu);
				ScaleSupport.sleep(this.periodMs);
			}
			this.cpuNanos.set(ScaleSupport.threadCpuNanos() - cpu);
		}

	}

	/**
	 * Runs {@code action(i)} for i below {@code count}, {@value #IN_FLIGHT} in flight;
	 * those that fail (a cold JVM on a loaded machine may miss the node timeout) are
	 * tried again, up to {@value #PASSES} passes (a loaded machine's odd slow answer may
	 * hit the same key twice among 100,000), then the first failure is thrown.
	 */
	static int acquireAll(int count, IntFunction<CompletionStage<?>> action) throws InterruptedException {
		int[] todo = new int[count];
		for (int i = 0; i < count; i++) {
			todo[i] = i;
		}
		AtomicReference<Throwable> first = new AtomicReference<>();
		for (int pass = 0; pass < PASSES && todo.length > 0; pass++) {
			Semaphore permits = new Semaphore(IN_FLIGHT);
			Queue<Integer> failed = new ConcurrentLinkedQueue<>();
			for (int i : todo) {
				permits.acquire();
				action.apply(i).whenComplete((ok, error) -> {
					if (error != null) {
						failed.add(i);
						first.compareAndSet(null, error);
					}
					permits.release();
				});
			}
			permits.acquire(IN_FLIGHT);
			todo = failed.stream().mapToInt(Integer::intValue).toArray();
		}
		if (todo.length > 0) {
			throw new IllegalStateException(todo.length + " of " + count + " still failing after " + PASSES + " passes",
					first.get());
		}
		return count;
	}

}
