package io.quorumlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The temp directory of one {@link RedisServer}: its working directory and, for each
 * process launched, a Redis log and a stdout/stderr file, whose tails go into error
 * messages.
 */
final class WorkDirectory {

	private static final int LOG_TAIL_LINES = 40;

	private final String owner;

	private volatile Path dir;

	/** Number of processes launched, to give each its own log files. */
	private volatile int launches;

	WorkDirectory(String owner) {
		this.owner = owner;
	}

	/** The directory, created if missing. */
	Path ensure() {
		Path current = this.dir;
		if (current == null || !Files.isDirectory(current)) {
			try {
				current = Files.createTempDirectory("quorumlock-redis-");
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot create a temp dir for " + this.owner, ex);
			}
			this.dir = current;
		}
		return current;
	}

	/** Count a new launch (called under the server's lock); its number names its logs. */
	int nextLaunch() {
		int next = this.launches + 1;
		this.launches = next;
		return next;
	}

	Path log(int launch) {
		return ensure().resolve(logName(launch));
	}

	Path stdout(int launch) {
		return ensure().resolve(stdoutName(launch));
	}

	/** The directory, {@code null} once deleted. */
	Path path() {
		return this.dir;
	}

	/** Delete the directory, best effort: a leftover temp file must not fail a test. */
	void delete() {
		Path current = this.dir;
		this.dir = null;
		if (current == null) {
			return;
		}
		try (Stream<Path> files = Files.walk(current)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> {
				try {
					Files.deleteIfExists(path);
				}
				catch (IOException ex) {
					// best effort
				}
			});
		}
		catch (NoSuchFileException ex) {
			// already gone
		}
		catch (IOException ex) {
			// best effort
		}
	}

	/** Delete a tree, best effort. */
	static void deleteTree(Path root) {
		try (Stream<Path> files = Files.walk(root)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> {
				try {
					Files.deleteIfExists(path);
				}
				catch (IOException ex) {
					// best effort
				}
			});
		}
		catch (IOException ex) {
			// best effort: missing or unreadable
		}
	}

	/** The last lines of the latest process's log and stdout/stderr. */
	String tail() {
		Path current = this.dir;
		if (current == null) {
			return "(no log: temp dir deleted)";
		}
		int launch = this.launches;
		return tail(current.resolve(logName(launch))) + tail(current.resolve(stdoutName(launch)));
	}

	private static String logName(int launch) {
		return "redis-" + launch + ".log";
	}

	private static String stdoutName(int launch) {
		return "stdout-" + launch + ".log";
	}

	private static String tail(Path file) {
		List<String> lines;
		try {
			lines = Files.readAllLines(file, StandardCharsets.UTF_8);
		}
		catch (NoSuchFileException ex) {
			return "--- " + file + ": (missing)\n";
		}
		catch (IOException ex) {
			return "--- " + file + ": (unreadable: " + ex + ")\n";
		}
		int from = Math.max(0, lines.size() - LOG_TAIL_LINES);
		return "--- tail of " + file + ":\n" + String.join("\n", lines.subList(from, lines.size())) + "\n";
	}

}
