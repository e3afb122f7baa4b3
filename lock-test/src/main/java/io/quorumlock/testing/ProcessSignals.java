package io.quorumlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Fault control of a {@code redis-server} process this JVM started: signals sent by its
 * PID ({@code kill -STOP}, {@code kill -CONT}) and bounded waits for their effect.
 */
final class ProcessSignals {

	private static final Duration PROCESS_EXIT_TIMEOUT = Duration.ofSeconds(10);

	private ProcessSignals() {
	}

	/** Run {@code kill -<signal> <pid>} for the process we started and wait for it. */
	static void signal(Process target, String signal) {
		List<String> command = List.of("kill", "-" + signal, String.valueOf(target.pid()));
		try {
			Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
			kill.getOutputStream().close();
			byte[] output = kill.getInputStream().readAllBytes();
			if (!kill.waitFor(10, TimeUnit.SECONDS)) {
				kill.destroyForcibly();
				throw new IllegalStateException(command + " did not finish within 10 s");
			}
			if (kill.exitValue() != 0) {
				throw new IllegalStateException(command + " failed with exit code " + kill.exitValue() + ": "
						+ new String(output, StandardCharsets.UTF_8).trim());
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot run " + command, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + command, ex);
		}
	}

	/**
	 * On Linux, wait (briefly) until /proc reports the process as stopped or no longer
	 * stopped.
	 */
	static void awaitStopped(Process target, boolean stopped) {
		Path stat = Paths.get("/proc", String.valueOf(target.pid()), "stat");
		if (!Files.isReadable(stat)) {
			return;
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
		while (System.nanoTime() < deadline && target.isAlive()) {
			try {
				String text = Files.readString(stat, StandardCharsets.UTF_8);
				int close = text.lastIndexOf(')');
				char state = (close >= 0 && close + 2 < text.length()) ? text.charAt(close + 2) : '?';
				if ((state == 'T' || state == 't') == stopped) {
					return;
				}
			}
			catch (IOException ex) {
				return;
			}
			sleep(2);
		}
	}

	/** Wait for a process that was sent SIGKILL to exit. */
	static void awaitExit(Process target) {
		try {
			if (!target.waitFor(PROCESS_EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException("redis-server pid " + target.pid() + " did not exit within "
						+ PROCESS_EXIT_TIMEOUT + " after SIGKILL");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for pid " + target.pid() + " to exit", ex);
		}
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

}
