package io.quorumlock.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

	private static final long MS_PER_CLOCK_TICK = 10;

	private final Set<Long> own;

	private final long stealBefore;

	private final Map<Long, Task> before;

	private OtherCpu(Set<Long> own) {
		this.own = own;
		this.stealBefore = stealTicks();
		this.before = tasks();
	}

	/**
	 * Start counting now.
	 * @param clientPids the case's client processes
	 * @param nodes the run's Redis servers ({@code redis://host:port}), whose processes
	 * are the case's own too
	 * @return the count, to be ended with {@link #end(Map)}
	 */
	static OtherCpu start(List<Long> clientPids, List<String> nodes) {
		Set<Long> own = new HashSet<>(clientPids);
		own.add(ProcessHandle.current().pid());
		for (String node : nodes) {
			long pid = redisPid(node);
			if (pid > 0) {
				own.add(pid);
			}
		}
		return new OtherCpu(own);
	}

	/**
	 * End the count and put its figures in {@code out}: {@code otherCpuMs},
	 * {@code busiestOther} ({@code name:ms}) and {@code stealMs}, when {@code /proc}
	 * could be read.
	 * @param out the case's results
	 */
	void end(Map<String, Object> out) {
		Map<Long, Task> after = tasks();
		long steal = stealTicks();
		if (after.isEmpty() || steal < 0 || this.stealBefore < 0) {
			return;
		}
		long others = 0;
		String busiest = null;
		long busiestTicks = 0;
		for (Map.Entry<Long, Task> entry : after.entrySet()) {
			if (this.own.contains(entry.getKey())) {
				continue;
			}
			Task then = this.before.get(entry.getKey());
			long ticks = entry.getValue().ticks() - ((then != null) ? then.ticks() : 0);
			others += ticks;
			if (ticks > busiestTicks) {
				busiest = entry.getValue().name();
				busiestTicks = ticks;
			}
		}
		out.put("otherCpuMs", others * MS_PER_CLOCK_TICK);
		out.put("busiestOther", (busiest != null) ? busiest + ":" + busiestTicks * MS_PER_CLOCK_TICK : "none");
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
	private static Map<Long, Task> tasks() {
		Map<Long, Task> tasks = new HashMap<>();
		try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
			for (Path dir : dirs) {
				try {
					String stat = Files.readString(dir.resolve("stat"));
					int close = stat.lastIndexOf(')');
					String[] fields = stat.substring(close + 2).split(" ");
					// after the name: utime and stime are fields 14 and 15 of the line
					long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
					tasks.put(Long.parseLong(dir.getFileName().toString()),
							new Task(stat.substring(stat.indexOf('(') + 1, close), ticks));
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

	/**
	 * The server's {@code process_id} from {@code INFO server}, over a plain socket; 0 if
	 * it cannot be read.
	 */
	static long redisPid(String node) {
		URI uri = URI.create(node);
		try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
			socket.setSoTimeout(2000);
			socket.getOutputStream().write("INFO server\r\n".getBytes(StandardCharsets.US_ASCII));
			InputStream in = socket.getInputStream();
			StringBuilder header = new StringBuilder();
			for (int c = in.read(); c != '\n'; c = in.read()) {
				if (c < 0) {
					return 0;
				}
				header.append((char) c);
			}
			if (header.charAt(0) != '$') {
				return 0;
			}
			byte[] body = in.readNBytes(Integer.parseInt(header.substring(1).trim()));
			for (String line : new String(body, StandardCharsets.UTF_8).split("\r\n")) {
				if (line.startsWith("process_id:")) {
					return Long.parseLong(line.substring("process_id:".length()).trim());
				}
			}
			return 0;
		}
		catch (IOException | RuntimeException ex) {
			return 0;
		}
	}

	private record Task(String name, long ticks) {
	}

}
