package io.quorumlock.autoconfigure;

import java.time.Duration;

/**
 * Bounds of the jittered retry delay. Binds from {@code min..max} (such as
 * {@code 10ms..200ms}) or from the nested {@code min} and {@code max} properties.
 */
public final class RetryDelay {

	/**
	 * Shortest delay between attempts.
	 */
	private Duration min = Duration.ofMillis(10);

	/**
	 * Longest delay between attempts.
	 */
	private Duration max = Duration.ofMillis(200);

	/**
	 * Create bounds with the defaults, to bind {@code min} and {@code max} into.
	 */
	public RetryDelay() {
	}

	/**
	 * Create bounds.
	 * @param min the shortest delay
	 * @param max the longest delay
	 */
	public RetryDelay(Duration min, Duration max) {
		this.min = min;
		this.max = max;
	}

	public Duration getMin() {
		return this.min;
	}

	public void setMin(Duration min) {
		this.min = min;
	}

	public Duration getMax() {
		return this.max;
	}

	public void setMax(Duration max) {
		this.max = max;
	}

	@Override
	public String toString() {
		return this.min + ".." + this.max;
	}

}
