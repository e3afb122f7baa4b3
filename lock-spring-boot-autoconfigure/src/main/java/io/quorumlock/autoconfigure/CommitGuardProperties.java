package io.quorumlock.autoconfigure;

import java.time.Duration;

/**
 * The commit guard: a transaction begun under a lock does not commit once the lease is
 * lost, or when less validity is left than the margin.
 */
public final class CommitGuardProperties {

	/**
	 * Whether a transaction begun under a lock (inside a @DistributedLock method or an
	 * execute action) is checked against the lease just before it commits, and rolled
	 * back with a LeaseLostException when the lease is lost or has less validity left
	 * than the margin.
	 */
	private boolean enabled = true;

	/**
	 * Validity a lease must still have when a transaction begun under it commits: a
	 * commit that could outlive the lease is rolled back instead. Set it above your
	 * commits' longest duration; zero only refuses a lease already lost or expired.
	 */
	private Duration margin = Duration.ofMillis(50);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getMargin() {
		return this.margin;
	}

	public void setMargin(Duration margin) {
		this.margin = margin;
	}

}
