package io.quorumlock.bench;

import static io.quorumlock.bench.ScaleSupport.MS_PER_CLOCK_TICK;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import io.quorumlock.bench.ScaleSupport.TaskCpu;

/**
 * The CPU a machine spent outside a scale case during its window: that of every process
 * but the case's own (its client JVMs, the run's Redis servers, this JVM), kernel threads
 * included, from {@code /proc}, with the one that took the most; and the time the
 * hypervisor gave to others while a CPU wanted to run ({@code /proc/stat}'s steal). On a
 * machine where the kernel or another tenant takes a CPU in bursts of several
 * milliseconds (a memory reclaimer, say), a case's wait tail follows those bursts,
 * whoever the candidate; this says how much there was. Processes that started and ended
 * inside the window are not seen, and the kernel counts CPU in clock ticks (10 ms), so
 * the figures are to about a tick per process. Where there is no {@code /proc}, nothing
 * is reported.
 */
final class OtherCpu {

	private final Set<Long> own;

	private final long stealBefore;

	private final Map<Long, TaskCpu> before;

	private OtherCpu(Set<Long> own) {
		this.own = own;
		this.stealBefore = stealTicks();
		this.before = tasks();
	}

	/**
	 * Start counting now.
	 * @param own the case's own processes (its client JVMs and Redis servers); this JVM
	 * is added
	 * @return the count, to be ended with {@link #end(Map)}
	 */
	static OtherCpu start(Collection<Long> own) {
		Set<Long> all = new HashSet<>(own);
		all.add(ProcessHandle.current().pid());
		return new OtherCpu(all);
	}

	/**
	 * End the count and put its figures in {@code out}: {@code otherCpuMs},
	 * {@code busiestOther} ({@code name:ms}) and {@code stealMs}, when {@code /proc}
	 * could be read.
	 * @param out the case's results
	 */
	void end(Map<String, Object> out) {
		Map<Long, TaskCpu> after = tasks();
		long steal = stealTicks();
		if (after.isEmpty() || steal < 0 || this.stealBefore < 0) {
			return;
		}
		long others = 0;
		String busiest = null;
		long busiestTicks = 0;
		for (Map.Entry<Long, TaskCpu> entry : after.entrySet()) {
			if (this.own.contains(entry.getKey())) {
				continue;
			}
			TaskCpu then = this.before.get(entry.getKey());
			long ticks = entry.getValue().ticks() - ((then != null) ? then.ticks() : 0);
			others += ticks;
			if (ticks > busiestTicks) {
				busiest = entry.getValue().name();
				busiestTicks = ticks;
			}
		}
		out.put("otherCpuMs", others * MS_PER_CLOCK_TICK);
		out.put("busiestOther", (busiest != null) ? busiest : "none");
		out.put("busiestOtherMs", busiestTicks * MS_PER_CLOCK_TICK);
		out.put("stealMs", (steal - this.stealBefore) * MS_PER_CLOCK_TICK);
	}

	/**
	 * Stolen clock ticks of all CPUs so far: the eighth figure of the first line of
	 * {@code /proc/stat} (user, nice, system, idle, iowait, irq, softirq, steal, ...); -1
	 * without it.
	 */
	private static long stealTicks() {
		try {
			return Long.parseLong(Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+")[8]);
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	/** Every process's name and CPU ticks so far (user and system, all its threads). */
	private static Map<Long, TaskCpu> tasks() {
		Map<Long, TaskCpu> tasks = new HashMap<>();
		try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
			for (Path dir : dirs) {
				try {
					tasks.put(Long.parseLong(dir.getFileName().toString()), TaskCpu.read(dir.resolve("stat")));
				}
				catch (IOException | RuntimeException ended) {
					// a process that ended while read
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// no /proc: nothing to name
		}
		return tasks;
	}

}
