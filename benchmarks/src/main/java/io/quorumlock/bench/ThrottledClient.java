package io.quorumlock.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import io.quorumlock.bench.candidates.Candidate;
import io.quorumlock.bench.candidates.LockClient;

/**
 * The scale scenario of a throttled client: {@code ThrottledClient candidates nodes
 * threads warmupMs measureMs holdMs}. What a pod held to its CPU limit, a GC pause or a
 * noisy neighbour does to a lock client: this very process is stopped ({@code kill
 * -STOP}) for 50 to 150 ms at a time and continued ({@code kill -CONT}) for 100 to 300
 * ms, at random, by a small shell loop it starts after the warm-up and ends before it
 * reports. Meanwhile {@code threads} threads each lock a key nobody else uses, without
 * waiting (a free key must be granted), hold it for {@code holdMs} and unlock it. For
 * each candidate, in turn, one {@code [scale]} line: calls, calls that were refused
 * although the key was free ({@code failed}), releases that reported the lease lost
 * ({@code lost}, false: the lease is 30 s and renewed), other errors, p50 and p99 of the
 * successful calls' time to entry, and the stalls a 5 ms ticker saw (so a run that was
 * not throttled shows it).
 */
final class ThrottledClient {

	/** Shortest and longest stop, and shortest and longest run between two stops (ms). */
	static final int STOP_MIN = 50;

	static final int STOP_MAX = 150;

	static final int RUN_MIN = 100;

	static final int RUN_MAX = 300;

	private ThrottledClient() {
	}

	public static void main(String[] args) throws Exception {
		String[] candidates = args[0].split(",");
		int nodes = Integer.parseInt(args[1]);
		int threads = Integer.parseInt(args[2]);
		long warmupMs = Long.parseLong(args[3]);
		long measureMs = Long.parseLong(args[4]);
		long holdMs = Long.parseLong(args[5]);
		for (String id : candidates) {
			Candidate candidate = Candidate.of(id);
			try (LockClient client = candidate.open(BenchNodes.first(nodes))) {
				run(client, id, threads, warmupMs, false, holdMs);
				Process throttler = throttle(ProcessHandle.current().pid());
				Map<String, Object> out;
				try {
					out = run(client, id, threads, measureMs, true, holdMs);
				}
				finally {
					throttler.destroy();
					throttler.waitFor();
				}
				out.put("nodes", nodes);
				ScaleSupport.emit(out);
			}
		}
		System.exit(0);
	}

	/**
	 * A shell loop that stops and continues this process at random, until it is ended or
	 * this process is gone. It is ended only while this process runs (the call ending it
	 * runs here), so the last signal this process received is always a continue.
	 */
	private static Process throttle(long pid) throws IOException {
		String stop = "printf '0.%03d' $(( " + STOP_MIN + " + RANDOM % " + (STOP_MAX - STOP_MIN + 1) + " ))";
		String run = "printf '0.%03d' $(( " + RUN_MIN + " + RANDOM % " + (RUN_MAX - RUN_MIN + 1) + " ))";
		String loop = "trap 'kill -CONT " + pid + "; exit 0' TERM; while kill -0 " + pid
				+ " 2>/dev/null; do kill -STOP " + pid + "; sleep $(" + stop + "); kill -CONT " + pid + "; sleep $("
				+ run + "); done";
		return new ProcessBuilder(List.of("bash", "-c", loop)).inheritIO().start();
	}

	private static Map<String, Object> run(LockClient client, String id, int threads, long durationMs, boolean measured,
			long holdMs) throws InterruptedException {
		Errors.reset();
		AtomicLong calls = new AtomicLong();
		AtomicLong failed = new AtomicLong();
		AtomicLong lost = new AtomicLong();
		AtomicLong otherErrors = new AtomicLong();
		Map<String, AtomicLong> firstErrors = new ConcurrentHashMap<>();
		List<long[]> latencies = new ArrayList<>();
		int[] recorded = new int[threads];
		long end = System.nanoTime() + durationMs * 1_000_000;
		CountDownLatch done = new CountDownLatch(threads);
		Stalls stalls = new Stalls();
		stalls.start();
		for (int t = 0; t < threads; t++) {
			int thread = t;
			long[] mine = new long[1 << 16];
			latencies.add(mine);
			Thread worker = new Thread(() -> {
				long n = 0;
				while (System.nanoTime() - end < 0) {
					String key = BenchNodes.key("throttled-" + (measured ? "m" : "w"), id + "-" + thread + "-" + n++);
					long start = System.nanoTime();
					long[] entered = new long[1];
					calls.incrementAndGet();
					try {
						boolean granted = client.withLock(key, false, () -> {
							entered[0] = System.nanoTime();
							ScaleSupport.sleep(holdMs);
						});
						if (!granted) {
							failed.incrementAndGet();
						}
						else if (recorded[thread] < mine.length) {
							mine[recorded[thread]++] = entered[0] - start;
						}
					}
					catch (Exception ex) {
						String type = ex.getClass().getSimpleName();
						if (type.contains("LeaseLost") || type.contains("IllegalMonitorState")
								|| type.contains("ConcurrentModification")) {
							lost.incrementAndGet();
						}
						else if (entered[0] == 0) {
							failed.incrementAndGet(); // refused with an exception: a
														// failed call
						}
						else {
							otherErrors.incrementAndGet();
						}
						firstErrors.computeIfAbsent(type, (k) -> new AtomicLong()).incrementAndGet();
						Errors.record(ex);
					}
				}
				done.countDown();
			}, "throttled-" + t);
			worker.setDaemon(true);
			worker.start();
		}
		done.await();
		stalls.interrupt();
		long[] all = new long[0];
		for (int t = 0; t < threads; t++) {
			long[] mine = latencies.get(t);
			long[] merged = new long[all.length + recorded[t]];
			System.arraycopy(all, 0, merged, 0, all.length);
			System.arraycopy(mine, 0, merged, all.length, recorded[t]);
			all = merged;
		}
		long[] sorted = ScaleSupport.sorted(all, all.length);
		Map<String, Object> out = ScaleSupport.values();
		out.put("candidate", id);
		out.put("threads", threads);
		out.put("seconds", durationMs / 1000.0);
		out.put("calls", calls.get());
		out.put("failed", failed.get());
		out.put("lost", lost.get());
		out.put("otherErrors", otherErrors.get());
		out.put("p50Us", (sorted.length > 0) ? ScaleSupport.quantileUs(sorted, sorted.length, 0.5) : 0.0);
		out.put("p99Us", (sorted.length > 0) ? ScaleSupport.quantileUs(sorted, sorted.length, 0.99) : 0.0);
		out.put("stallsSeen", stalls.count);
		out.put("stalledMs", stalls.stalledNanos / 1_000_000);
		out.put("errorTypes", firstErrors.isEmpty() ? "none" : String.join(",",
				firstErrors.entrySet().stream().map((e) -> e.getKey() + ":" + e.getValue().get()).toList()));
		return out;
	}

	/**
	 * A 5 ms ticker that counts the gaps longer than 40 ms: the stops it lived through.
	 */
	private static final class Stalls extends Thread {

		volatile long count;

		volatile long stalledNanos;

		Stalls() {
			super("throttled-stalls");
			setDaemon(true);
		}

		@Override
		public void run() {
			long last = System.nanoTime();
			while (!isInterrupted()) {
				try {
					Thread.sleep(5);
				}
				catch (InterruptedException ex) {
					return;
				}
				long now = System.nanoTime();
				long gap = now - last;
				if (gap > 40_000_000L) {
					this.count++;
					this.stalledNanos += gap;
				}
				last = now;
			}
		}

	}

}
