package io.quorumlock.aop;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the duration attributes of {@code @DistributedLock}: {@code 500ms}, {@code 30s},
 * {@code 2m}, {@code 1h}, {@code 1d} (also {@code ns}, {@code us}; no unit means
 * milliseconds) or ISO-8601 such as {@code PT30S}, the same forms as Spring Boot's
 * {@code DurationStyle}, without depending on Spring Boot.
 */
final class LockDurations {

	private static final Pattern SIMPLE = Pattern.compile("^([+-]?\\d+)([a-zA-Z]{0,2})$");

	private static final Pattern ISO = Pattern.compile("^[+-]?[pP].*$");

	private LockDurations() {
	}

	/**
	 * Parse a duration.
	 * @param text the text, not empty
	 * @return the duration, possibly negative
	 * @throws IllegalArgumentException if the text is not a duration
	 */
	static Duration parse(String text) {
		String trimmed = text.trim();
		if (ISO.matcher(trimmed).matches()) {
			try {
				return Duration.parse(trimmed);
			}
			catch (DateTimeParseException ex) {
				throw new IllegalArgumentException("not an ISO-8601 duration", ex);
			}
		}
		Matcher matcher = SIMPLE.matcher(trimmed);
		if (!matcher.matches()) {
			throw new IllegalArgumentException("not a duration");
		}
		long amount;
		try {
			amount = Long.parseLong(matcher.group(1));
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("not a duration", ex);
		}
		return Duration.of(amount, unit(matcher.group(2)));
	}

	private static ChronoUnit unit(String suffix) {
		return switch (suffix.toLowerCase(Locale.ROOT)) {
			case "ns" -> ChronoUnit.NANOS;
			case "us" -> ChronoUnit.MICROS;
			case "", "ms" -> ChronoUnit.MILLIS;
			case "s" -> ChronoUnit.SECONDS;
			case "m" -> ChronoUnit.MINUTES;
			case "h" -> ChronoUnit.HOURS;
			case "d" -> ChronoUnit.DAYS;
			default -> throw new IllegalArgumentException("not a duration: unknown unit '" + suffix + "'");
		};
	}

}
