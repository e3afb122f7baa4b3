package io.quorumlock.autoconfigure;

/**
 * Metrics settings.
 */
public final class Metrics {

	/**
	 * Whether to publish lock metrics to Micrometer.
	 */
	private boolean enabled = true;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

}
