package io.quorumlock.bench;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Operations that did not lock (refused, timed out or threw) in the current trial. They
 * are counted rather than thrown, so that one slow reply does not void a whole benchmark;
 * {@link BenchProfiler} reports the count per iteration as the secondary result
 * {@code errors}, and the first error is printed when the trial ends.
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
	 * Print the trial's errors, if any.
	 * @param what the benchmark and its parameters
	 */
	public static void print(String what) {
		if (count.get() > 0) {
			System.out.println("[errors] " + what + " " + describe());
		}
	}

}
