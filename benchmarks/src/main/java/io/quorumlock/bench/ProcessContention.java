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
import java.io.BufferedInputStream;

/**
 * The scale scenario of contention across processes: {@code clients} separate JVMs
 * ({@link ContendingClient}) on one key of the first master. Once all are ready they warm
 * up together for {@code warmupMs}, then measure for {@code measureMs}. The warm-up is
 * long (20 s in a full run): four fresh JVMs on two cores keep their JIT compilers busy
 * for well over 10 s, and with a 2 s warm-up the compiler threads took about half the CPU
 * of the measurement. Measured: hand-overs per second, fairness (the slowest client's
 * operations ÷ the busiest's, as in the in-JVM contention benchmark), wait percentiles
 * (call to entry) and the mutual-exclusion violations counted by {@link SharedCounters}
 * across the processes.
 */
final class ProcessContention {

	private ProcessContention() {
	}

	static Map<String, Object> measure(String java, String candidate, int clients, long warmupMs, long measureMs)
			throws IOException, InterruptedException {
		Path dir = Files.createTempDirectory("quorumlock-processes-");
		Map<String, Object> out = ScaleSupport.values();
		out.put("candidate", candidate);
		out.put("clients", clients);
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
						counters.toString(), dir.resolve("waits-" + i).toString()));
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
			shared.setLong(SharedCounters.MEASURE_FROM, now + TimeUnit.MILLISECONDS.toNanos(warmupMs));
			shared.setLong(SharedCounters.MEASURE_UNTIL, now + TimeUnit.MILLISECONDS.toNanos(warmupMs + measureMs));
			shared.setLong(SharedCounters.GO, now);
			long[] ops = new long[clients];
			long timeouts = 0;
			long errors = 0;
			String firstError = null;
			long[] waits = new long[0];
			for (int i = 0; i < clients; i++) {
				Process p = processes.get(i);
				if (!p.waitFor(warmupMs + measureMs + 60_000, TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
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
