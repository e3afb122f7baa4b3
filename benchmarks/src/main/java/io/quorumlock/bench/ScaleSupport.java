package io.quorumlock.bench;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadFactory;

/**
 * Small helpers shared by the scale scenarios ({@link HeldLeases}, {@link Waiters},
 * {@link StalledMaster}, {@link ProcessContention}): each scenario runs in a child JVM
 * and prints its figures as one {@code [scale] key=value ...} line, which
 * {@link ScaleRunner} reads back.
 */
final class ScaleSupport {

	static final String PREFIX = "[scale] ";

	/** A clock tick of {@code /proc}'s CPU times: Linux's {@code USER_HZ} is 100. */
	static final long MS_PER_CLOCK_TICK = 10;

	private ScaleSupport() {
	}

	/** Print a result line (values without spaces). */
	static void emit(Map<String, Object> values) {
		StringBuilder line = new StringBuilder(PREFIX);
		values.forEach((k, v) -> line.append(k)
			.append('=')
			.append((v instanceof Double d) ? String.format(Locale.ROOT, "%.3f", d)
					: String.valueOf(v).replaceAll("\\s+", "_"))
			.append(' '));
		System.out.println(line.toString().trim());
		System.out.flush();
	}

	static Map<String, Object> values() {
		return new LinkedHashMap<>();
	}

	/**
	 * Heap in use after {@code System.gc()}, the least of a few tries (as
	 * {@link MemoryBenchmark} does).
	 */
	static long retainedHeap() throws InterruptedException {
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		long used = Long.MAX_VALUE;
		for (int i = 0; i < 4; i++) {
			System.gc();
			Thread.sleep(150);
			used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
		}
		return used;
	}

	/** This JVM's CPU time, all threads. */
	static long processCpuNanos() {
		if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
			return os.getProcessCpuTime();
		}
		return 0;
	}

	/**
	 * CPU time of this JVM's threads by kind, in ms, from {@code /proc/self/task}: each
	 * thread's name less its digits and {@code #} (so the GC workers are one entry, the
	 * I/O threads another); empty where there is no {@code /proc}. The difference of two
	 * readings is a window's profile by thread kind, the compilers, the collector's
	 * threads and the ones that have ended since excepted.
	 */
	static Map<String, Long> threadCpuMsByKind() {
		Map<String, Long> byKind = new TreeMap<>();
		File[] tasks = new File("/proc/self/task").listFiles();
		if (tasks == null) {
			return byKind;
		}
		for (File task : tasks) {
			try {
				TaskCpu cpu = TaskCpu.read(task.toPath().resolve("stat"));
				String kind = cpu.name().replaceAll("[0-9#]+", "").trim().replace(' ', '_');
				byKind.merge(kind, cpu.ticks() * MS_PER_CLOCK_TICK, Long::sum);
			}
			catch (IOException | RuntimeException ended) {
				// a thread that ended while read
			}
		}
		return byKind;
	}

	/**
	 * The CPU each kind of thread took between two readings of
	 * {@link #threadCpuMsByKind()}, largest first, as {@code kind:ms;...} (kinds under 10
	 * ms left out).
	 */
	static String threadCpuDelta(Map<String, Long> before, Map<String, Long> after) {
		StringBuilder out = new StringBuilder();
		after.entrySet()
			.stream()
			.map((e) -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
			.filter((e) -> e.getValue() >= 10)
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.forEach((e) -> out.append(e.getKey()).append(':').append(e.getValue()).append(';'));
		return (out.length() == 0) ? "none" : out.toString();
	}

	/** CPU time of the calling thread (to leave a probe's own cost out of a figure). */
	static long threadCpuNanos() {
		return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
	}

	/** The quantile of sorted nanoseconds, in microseconds; NaN if empty. */
	static double quantileUs(long[] sorted, int length, double quantile) {
		if (length == 0) {
			return Double.NaN;
		}
		int index = (int) Math.min(length - 1, Math.ceil(quantile * length) - 1);
		return sorted[Math.max(0, index)] / 1000.0;
	}

	static long[] sorted(long[] values, int length) {
		long[] copy = Arrays.copyOf(values, length);
		Arrays.sort(copy);
		return copy;
	}

	/** Jain's fairness index of per-caller counts: 1 when all got the same share. */
	static double jain(long[] counts) {
		double sum = 0;
		double squares = 0;
		for (long c : counts) {
			sum += c;
			squares += (double) c * c;
		}
		return (squares == 0) ? Double.NaN : sum * sum / (counts.length * squares);
	}

	/**
	 * A factory of virtual threads, found reflectively so that this module still compiles
	 * for Java 17; null below Java 21.
	 */
	static ThreadFactory virtualThreads() {
		try {
			Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
			return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
		}
		catch (ReflectiveOperationException ex) {
			return null;
		}
	}

	static int feature() {
		return Runtime.version().feature();
	}

	/** Send a signal to a process this run started (run.sh's redis-server), by PID. */
	static void signal(String signal, long pid) {
		try {
			Process kill = new ProcessBuilder(List.of("kill", "-" + signal, Long.toString(pid))).inheritIO().start();
			if (kill.waitFor() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + pid + " exited " + kill.exitValue());
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted sending " + signal + " to " + pid, ex);
		}
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** The {@code key=value} pairs of a line, in order. */
	static Map<String, String> keyValues(String line) {
		Map<String, String> values = new LinkedHashMap<>();
		for (String pair : line.trim().split("\\s+")) {
			int eq = pair.indexOf('=');
			if (eq > 0) {
				values.put(pair.substring(0, eq), pair.substring(eq + 1));
			}
		}
		return values;
	}

	/**
	 * A process's or thread's name and CPU time so far (user and system, in clock ticks),
	 * from its {@code /proc} stat file.
	 */
	record TaskCpu(String name, long ticks) {

		static TaskCpu read(Path stat) throws IOException {
			String line = Files.readString(stat);
			int close = line.lastIndexOf(')');
			String[] fields = line.substring(close + 2).split(" ");
			// after the name: state is field 3, utime and stime fields 14 and 15
			return new TaskCpu(line.substring(line.indexOf('(') + 1, close),
					Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
		}

	}

}
