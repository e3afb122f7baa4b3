package io.quorumlock.bench;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import io.quorumlock.bench.candidates.Candidate;
import io.quorumlock.bench.candidates.LockClient;
import java.io.BufferedOutputStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * One client process of {@link ProcessContention}: {@code ContendingClient candidate key
 * countersFile waitsFile index}. Writes its JIT compilation time to its slot of the
 * counters every 250 ms, for the warm-up to end when the compilers are quiet. Opens its
 * candidate on the first master, says it is ready, waits for the start, then locks
 * {@code key} (waiting up to 10 s), runs an empty critical section checked by
 * {@link SharedCounters}, unlocks, until the end of the measurement. Attempts that start
 * inside the measurement are counted and their waits (call to entry, ns) written to
 * {@code waitsFile}; prints one {@code [client] ops=N timeouts=N errors=N firstError=...}
 * line.
 */
final class ContendingClient {

	private ContendingClient() {
	}

	public static void main(String[] args) throws Exception {
		Candidate candidate = Candidate.of(args[0]);
		String key = args[1];
		SharedCounters shared = new SharedCounters(Path.of(args[2]));
		long[] waits = new long[1 << 20];
		int recorded = 0;
		long ops = 0;
		long timeouts = 0;
		Errors.reset();
		int index = Integer.parseInt(args[4]);
		Thread jit = new Thread(() -> {
			CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
			while (true) {
				shared.setLong(SharedCounters.jit(index), compiler.getTotalCompilationTime());
				try {
					Thread.sleep(250);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}, "bench-jit");
		jit.setDaemon(true);
		jit.start();
		try (LockClient client = candidate.open(BenchNodes.first(1))) {
			client.withLock(key + ":warmup", Duration.ofSeconds(10), () -> {
			});
			shared.add(SharedCounters.READY, 1);
			while (shared.getLong(SharedCounters.GO) == 0) {
				Thread.sleep(1);
			}
			Runnable body = () -> {
				shared.enter();
				shared.leave();
			};
			long[] entered = new long[1];
			Runnable timed = () -> {
				entered[0] = System.nanoTime();
				body.run();
			};
			// the window is set once the warm-up is over (ProcessContention): read each
			// turn
			for (long start = System.nanoTime(); start
					- shared.getLong(SharedCounters.MEASURE_UNTIL) < 0; start = System.nanoTime()) {
				boolean measured = start - shared.getLong(SharedCounters.MEASURE_FROM) >= 0;
				try {
					if (client.withLock(key, LockClient.WAIT, timed)) {
						if (measured) {
							ops++;
							if (recorded < waits.length) {
								waits[recorded++] = entered[0] - start;
							}
						}
					}
					else if (measured) {
						timeouts++;
					}
				}
				catch (Exception ex) {
					Errors.record(ex);
				}
			}
		}
		try (OutputStream file = Files.newOutputStream(Path.of(args[3]));
				DataOutputStream out = new DataOutputStream(new BufferedOutputStream(file))) {
			out.writeInt(recorded);
			for (int i = 0; i < recorded; i++) {
				out.writeLong(waits[i]);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("could not write " + args[3], ex);
		}
		System.out.println("[client] ops=" + ops + " timeouts=" + timeouts + " " + Errors.describe());
		System.exit(0);
	}

}
