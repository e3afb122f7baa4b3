package io.quorumlock.autoconfigure;

import java.time.Duration;

/**
 * FencingProperties token settings.
 */
public final class FencingProperties {

	/**
	 * Time to live of each per-key fencing counter after its last use.
	 */
	private Duration counterTtl = Duration.ofHours(1);

	public Duration getCounterTtl() {
		return this.counterTtl;
	}

	public void setCounterTtl(Duration counterTtl) {
		this.counterTtl = counterTtl;
	}

}
