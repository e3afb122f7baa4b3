package io.quorumlock.bench;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.io.BufferedInputStream;

/**
 * The scale scenario of contention across processes: {@code clients} separate JVMs
 * ({@link ContendingClient}) on one key of the first master. Once all are ready they warm
 * up together for at least {@code warmupMs}, and on until their JIT compilers are quiet
 * (at most {@link #MAX_WARMUP_MS}), then measure for {@code measureMs}. Four fresh JVMs
 * on two cores keep their compilers busy for a long time, and the more code a candidate
 * runs per turn, the longer: with a fixed 20 s warm-up, one machine still spent three
 * quarters of its CPU in the compilers of one candidate's clients during the measurement,
 * and none in the floor's, so the figure measured the JIT, not the lock. The warm-up and
 * the compilation time inside the window are reported. Measured: hand-overs per second,
 * fairness (the slowest client's operations ÷ the busiest's, as in the in-JVM contention
 * benchmark), wait percentiles (call to entry) and the mutual-exclusion violations
 * counted by {@link SharedCounters} across the processes.
 */
final class ProcessContention {

	/** The longest warm-up: measured then whatever the compilers do (reported). */
	static final long MAX_WARMUP_MS = 120_000;

	/** Quiet: the clients' compilers took less than this, all together, ... */
	private static final long QUIET_JIT_MS = 250;

	/** ... in this long. */
	private static final int QUIET_SECONDS = 5;

	private ProcessContention() {
	}

	static Map<String, Object> measure(String java, String candidate, int clients, long warmupMs, long measureMs)
			throws IOException, InterruptedException {
		if (clients > SharedCounters.MAX_CLIENTS) {
			throw new IllegalArgumentException(
					"at most " + SharedCounters.MAX_CLIENTS + " client processes, not " + clients);
		}
		Path dir = Files.createTempDirectory("quorumlock-processes-");
		Map<String, Object> out = ScaleSupport.values();
		out.put("candidate", candidate);
		out.put("clients", clients);
		out.put("windowMs", measureMs);
		List<Process> processes = new ArrayList<>();
		try {
			Path counters = dir.resolve("counters");
			SharedCounters shared = new SharedCounters(counters);
			String key = BenchNodes.key("processes", candidate);
			for (int i = 0; i < clients; i++) {
				List<String> command = new ArrayList<>(List.of(java, "-Xms256m", "-Xmx256m"));
				command.addAll(extraOptions(String.valueOf(i)));
				command.addAll(List.of("-D" + BenchNodes.PROPERTY + "=" + String.join(",", BenchNodes.all()), "-cp",
						System.getProperty("java.class.path"), ContendingClient.class.getName(), candidate, key,
						counters.toString(), dir.resolve("waits-" + i).toString(), String.valueOf(i)));
				processes.add(new ProcessBuilder(command).redirectErrorStream(true)
					.redirectOutput(dir.resolve("out-" + i).toFile())
					.start());
			}
			long readyBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
			while (shared.getInt(SharedCounters.READY) < clients) {
				for (Process p : processes) {
					if (!p.isAlive()) {
						throw new IllegalStateException(
								"a client exited before the start: " + output(dir, processes.indexOf(p)));
					}
				}
				if (System.nanoTime() - readyBy > 0) {
					throw new IllegalStateException("clients not ready within 120 s");
				}
				Thread.sleep(10);
			}
			long now = System.nanoTime();
			long later = now + TimeUnit.DAYS.toNanos(1); // set once the warm-up is over
			shared.setLong(SharedCounters.MEASURE_FROM, later);
			shared.setLong(SharedCounters.MEASURE_UNTIL, later);
			shared.setLong(SharedCounters.GO, now);
			long warmedUp = warmUp(shared, processes, dir, clients, now, warmupMs);
			long jitBefore = jit(shared, clients);
			List<Long> own = new ArrayList<>(processes.stream().map(Process::pid).toList());
			try (RedisStats servers = new RedisStats(BenchNodes.all())) {
				own.addAll(servers.pids());
			}
			OtherCpu others = OtherCpu.start(own);
			// the end first: a client that reads the new start then finds the new end
			shared.setLong(SharedCounters.MEASURE_UNTIL, warmedUp + TimeUnit.MILLISECONDS.toNanos(measureMs));
			shared.setLong(SharedCounters.MEASURE_FROM, warmedUp);
			// for a profiler or scheduler trace from outside
			// (benchmarks/handover-steps.sh)
			System.err.println("[processes] window of " + measureMs + " ms starts, server " + BenchNodes.first(1).get(0)
					+ ", client pids "
					+ processes.stream().map((p) -> String.valueOf(p.pid())).collect(Collectors.joining(",")));
			out.put("warmupMs", TimeUnit.NANOSECONDS.toMillis(warmedUp - now));
			long windowEnd = warmedUp + TimeUnit.MILLISECONDS.toNanos(measureMs);
			while (System.nanoTime() - windowEnd < 0) {
				Thread.sleep(Math.max(1, Math.min(100, TimeUnit.NANOSECONDS.toMillis(windowEnd - System.nanoTime()))));
			}
			System.err.println("[processes] window ends");
			others.end(out);
			out.put("jitMsInWindow", jit(shared, clients) - jitBefore);
			long[] ops = new long[clients];
			long timeouts = 0;
			long errors = 0;
			String firstError = null;
			long[] waits = new long[0];
			for (int i = 0; i < clients; i++) {
				Process p = processes.get(i);
				if (!p.waitFor(measureMs + 60_000, TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
					throw new IllegalStateException("client " + i + " failed: " + output(dir, i));
				}
				String line = output(dir, i);
				line = line.substring(line.lastIndexOf("[client] ") + "[client] ".length());
				int first = line.indexOf(" firstError=");
				if (first >= 0) {
					firstError = (firstError != null) ? firstError : line.substring(first + 12).trim();
					line = line.substring(0, first);
				}
				Map<String, String> values = ScaleSupport.keyValues(line);
				ops[i] = Long.parseLong(values.get("ops"));
				timeouts += Long.parseLong(values.get("timeouts"));
				errors += Long.parseLong(values.get("errors"));
				waits = concat(waits, dir.resolve("waits-" + i));
			}
			Arrays.sort(waits);
			long min = Arrays.stream(ops).min().orElse(0);
			long max = Arrays.stream(ops).max().orElse(0);
			out.put("opsPerSecond", Arrays.stream(ops).sum() / (measureMs / 1000.0));
			out.put("fairness", (max == 0) ? 0.0 : (double) min / max);
			out.put("opsPerClient", Arrays.toString(ops).replace(" ", ""));
			out.put("waitP50Us", ScaleSupport.quantileUs(waits, waits.length, 0.50));
			out.put("waitP99Us", ScaleSupport.quantileUs(waits, waits.length, 0.99));
			out.put("waitP999Us", ScaleSupport.quantileUs(waits, waits.length, 0.999));
			out.put("waitMaxUs", (waits.length == 0) ? Double.NaN : waits[waits.length - 1] / 1000.0);
			out.put("timeouts", timeouts);
			out.put("violations", shared.getInt(SharedCounters.VIOLATIONS));
			out.put("errors", errors);
			if (firstError != null) {
				out.put("firstError", firstError);
			}
			return out;
		}
		finally {
			for (Process p : processes) {
				p.destroyForcibly();
			}
			try (var files = Files.list(dir)) {
				for (Path file : files.toList()) {
					Files.deleteIfExists(file);
				}
			}
			Files.deleteIfExists(dir);
		}
	}

	/**
	 * Wait at least {@code minMs} from {@code start}, then until the clients' compilers
	 * took under {@link #QUIET_JIT_MS} in the last {@link #QUIET_SECONDS} seconds, or
	 * {@link #MAX_WARMUP_MS} passed.
	 * @return when the warm-up ended ({@code System.nanoTime()})
	 */
	private static long warmUp(SharedCounters shared, List<Process> processes, Path dir, int clients, long start,
			long minMs) throws IOException, InterruptedException {
		if (minMs < QUIET_SECONDS * 1000L) { // a smoke run: no time to wait for quiet
			Thread.sleep(minMs);
			return System.nanoTime();
		}
		long[] history = new long[QUIET_SECONDS + 1];
		int seen = 0;
		while (true) {
			Thread.sleep(1000);
			for (Process p : processes) {
				if (!p.isAlive()) {
					throw new IllegalStateException(
							"a client exited during the warm-up: " + output(dir, processes.indexOf(p)));
				}
			}
			System.arraycopy(history, 1, history, 0, QUIET_SECONDS);
			history[QUIET_SECONDS] = jit(shared, clients);
			seen++;
			long now = System.nanoTime();
			long elapsedMs = TimeUnit.NANOSECONDS.toMillis(now - start);
			boolean quiet = seen > QUIET_SECONDS && history[QUIET_SECONDS] - history[0] < QUIET_JIT_MS;
			if ((elapsedMs >= minMs && quiet) || elapsedMs >= Math.max(minMs, MAX_WARMUP_MS)) {
				return now;
			}
		}
	}

	/** The clients' JIT compilation time so far, in ms, all together. */
	private static long jit(SharedCounters shared, int clients) {
		long sum = 0;
		for (int i = 0; i < clients; i++) {
			sum += shared.getLong(SharedCounters.jit(i));
		}
		return sum;
	}

	/**
	 * The options in {@code $BENCH_CLIENT_JAVA_OPTS} for a JVM this run starts (a scale
	 * case, or a client here), {@code %i} replaced by {@code name}: a flight recording
	 * each, say.
	 */
	static List<String> extraOptions(String name) {
		String options = System.getenv("BENCH_CLIENT_JAVA_OPTS");
		if (options == null || options.isBlank()) {
			return List.of();
		}
		return Arrays.stream(options.trim().split("\\s+")).map((option) -> option.replace("%i", name)).toList();
	}

	private static String output(Path dir, int i) throws IOException {
		Path file = dir.resolve("out-" + i);
		return Files.exists(file) ? Files.readString(file).trim() : "(no output)";
	}

	private static long[] concat(long[] all, Path file) throws IOException {
		try (InputStream in = Files.newInputStream(file);
				DataInputStream data = new DataInputStream(new BufferedInputStream(in))) {
			int n = data.readInt();
			long[] merged = Arrays.copyOf(all, all.length + n);
			for (int i = 0; i < n; i++) {
				merged[all.length + i] = data.readLong();
			}
			return merged;
		}
	}

}
