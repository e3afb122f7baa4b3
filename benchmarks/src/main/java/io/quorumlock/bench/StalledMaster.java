package io.quorumlock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.quorumlock.bench.candidates.Candidate;
import io.quorumlock.bench.candidates.LockClient;
import java.util.Arrays;

/**
 * The scale scenario of a stalled master: {@code StalledMaster phaseMs warmupMs threads
 * candidates pid} on the first 3 masters, where {@code pid} is the third master's process
 * (started by run.sh). Every candidate is opened first, then measured healthy, then the
 * third master is stopped ({@code kill -STOP}) and every candidate measured again, then
 * the master is resumed ({@code kill -CONT}: always, in a finally block and a shutdown
 * hook; run.sh resumes its servers on exit too). For each candidate and state: one thread
 * locking and unlocking one key (p50, p99), {@code threads} threads on distinct keys
 * (lock + unlock per second), and a mutual-exclusion probe (4 threads waiting for one
 * key, a counter only the holder may touch). A phase whose calls are still blocked 10 s
 * after its end is abandoned and reported ({@code stuck}). Prints one {@code [scale]}
 * line per candidate and state.
 */
final class StalledMaster {

	private StalledMaster() {
	}

	public static void main(String[] args) throws Exception {
		long phaseMs = Long.parseLong(args[0]);
		long warmupMs = Long.parseLong(args[1]);
		int threads = Integer.parseInt(args[2]);
		List<Candidate> candidates = new ArrayList<>();
		for (String id : args[3].split(",")) {
			candidates.add(Candidate.of(id));
		}
		long pid = Long.parseLong(args[4]);
		Map<Candidate, LockClient> clients = new LinkedHashMap<>();
		Thread resume = new Thread(() -> ScaleSupport.signal("CONT", pid));
		try {
			for (Candidate candidate : candidates) {
				clients.put(candidate, candidate.open(BenchNodes.first(3)));
			}
			for (String state : List.of("healthy", "stalled")) {
				if (state.equals("stalled")) {
					Runtime.getRuntime().addShutdownHook(resume);
					ScaleSupport.signal("STOP", pid);
				}
				for (Map.Entry<Candidate, LockClient> entry : clients.entrySet()) {
					String id = entry.getKey().id();
					Map<String, Object> out = ScaleSupport.values();
					out.put("candidate", id);
					out.put("state", state);
					String key = BenchNodes.key("stalled-" + state, id);
					Errors.reset();
					run(1, state.equals("healthy") ? warmupMs : warmupMs / 4,
							(t, stop) -> loop(entry.getValue(), key, stop, null));
					Recorder latency = new Recorder();
					out.put("stuck", run(1, phaseMs, (t, stop) -> loop(entry.getValue(), key, stop, latency)));
					long[] sorted = ScaleSupport.sorted(latency.nanos, latency.count);
					out.put("samples", latency.count);
					out.put("p50Us", ScaleSupport.quantileUs(sorted, latency.count, 0.50));
					out.put("p99Us", ScaleSupport.quantileUs(sorted, latency.count, 0.99));
					AtomicLong ops = new AtomicLong();
					long started = System.nanoTime();
					int stuck = run(threads, phaseMs,
							(t, stop) -> ops.addAndGet(loop(entry.getValue(), key + ":" + t, stop, null)));
					out.put("opsPerSecond", ops.get() / ((System.nanoTime() - started) / 1e9));
					out.put("stuckThreads", stuck);
					AtomicInteger inside = new AtomicInteger();
					AtomicLong violations = new AtomicLong();
					AtomicLong handovers = new AtomicLong();
					Runnable body = () -> {
						if (inside.incrementAndGet() != 1) {
							violations.incrementAndGet();
						}
						handovers.incrementAndGet();
						inside.decrementAndGet();
					};
					run(4, Math.min(phaseMs, 1_000), (t, stop) -> {
						while (!stop.get()) {
							try {
								entry.getValue().withLock(key + ":probe", Duration.ofSeconds(2), body);
							}
							catch (Exception ex) {
								Errors.record(ex);
							}
						}
						return 0;
					});
					out.put("probeHandovers", handovers.get());
					out.put("violations", violations.get());
					out.put("errors", Errors.count());
					ScaleSupport.emit(out);
				}
			}
		}
		finally {
			ScaleSupport.signal("CONT", pid);
			try {
				Runtime.getRuntime().removeShutdownHook(resume);
			}
			catch (IllegalStateException | IllegalArgumentException ex) {
				// shutting down, or never added
			}
		}
		clients.values().forEach(LockClient::close);
		System.exit(0);
	}

	/** Lock and unlock {@code key} until told to stop; returns the operations done. */
	private static long loop(LockClient client, String key, AtomicBoolean stop, Recorder recorder) {
		long ops = 0;
		Runnable body = () -> {
		};
		while (!stop.get()) {
			long start = System.nanoTime();
			try {
				if (client.withLock(key, false, body)) {
					ops++;
					if (recorder != null) {
						recorder.add(System.nanoTime() - start);
					}
				}
				else {
					Errors.record("uncontended lock of " + key + " refused");
				}
			}
			catch (Exception ex) {
				Errors.record(ex);
			}
		}
		return ops;
	}

	interface Work {

		long run(int thread, AtomicBoolean stop);

	}

	/**
	 * Run {@code work} on {@code threads} daemon threads for {@code millis}, then wait up
	 * to 10 s for them to finish; returns how many did not (abandoned).
	 */
	private static int run(int threads, long millis, Work work) throws InterruptedException {
		AtomicBoolean stop = new AtomicBoolean();
		List<Thread> started = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int me = t;
			Thread thread = new Thread(() -> work.run(me, stop), "stalled-" + t);
			thread.setDaemon(true);
			thread.start();
			started.add(thread);
		}
		Thread.sleep(millis);
		stop.set(true);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		int stuck = 0;
		for (Thread thread : started) {
			thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
			stuck += thread.isAlive() ? 1 : 0;
		}
		return stuck;
	}

	/** One thread's latencies (written by that thread, read after it stopped). */
	static final class Recorder {

		long[] nanos = new long[1 << 16];

		int count;

		void add(long value) {
			if (this.count == this.nanos.length) {
				this.nanos = Arrays.copyOf(this.nanos, this.count * 2);
			}
			this.nanos[this.count++] = value;
		}

	}

}
