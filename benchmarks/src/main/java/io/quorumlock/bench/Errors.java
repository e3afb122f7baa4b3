package io.quorumlock.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Operations that did not lock (refused, timed out or threw) in the current trial. They
 * are counted and reported rather than thrown, so that one slow reply does not void a
 * whole benchmark; the report shows the count and the first error.
 */
public final class Errors {

	private static final AtomicLong count = new AtomicLong();

	private static final AtomicReference<String> first = new AtomicReference<>();

	private Errors() {
	}

	/** Forget the previous trial's errors. */
	public static void reset() {
		count.set(0);
		first.set(null);
	}

	/**
	 * Count one failed operation.
	 * @param why what happened
	 */
	public static void record(String why) {
		count.incrementAndGet();
		first.compareAndSet(null, why);
	}

	/**
	 * Count one operation that threw.
	 * @param error what it threw
	 */
	public static void record(Throwable error) {
		record(error.getClass().getSimpleName() + ": " + error.getMessage());
	}

	/**
	 * Errors so far.
	 * @return the count
	 */
	public static long count() {
		return count.get();
	}

	/**
	 * The trial's errors as {@code errors=N firstError=...} (the message last, spaces
	 * kept).
	 * @return the line fragment
	 */
	public static String describe() {
		String why = first.get();
		return "errors=" + count.get() + ((why != null) ? " firstError=" + why.replaceAll("\\s+", " ") : "");
	}

	/**
	 * Print the trial's errors and append them to the statistics file, if any.
	 * @param line the line, with {@link #describe()} at its end
	 */
	public static void write(String line) {
		System.out.println("[stats] " + line);
		String file = System.getProperty(ContentionBenchmark.STATS_PROPERTY);
		if (file != null && !file.isBlank()) {
			try {
				Files.writeString(Path.of(file), line + System.lineSeparator(), StandardCharsets.UTF_8,
						StandardOpenOption.CREATE, StandardOpenOption.APPEND);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
	}

}
