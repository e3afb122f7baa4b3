package io.quorumlock.autoconfigure;

import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

/**
 * Actuator settings.
 */
public final class Actuator {

	/**
	 * Whether the locks endpoint accepted DELETE to force-unlock a key. No longer has an
	 * effect: the endpoint's access governs force-unlock.
	 */
	private boolean forceUnlockEnabled;

	@Deprecated(since = "0.1.0", forRemoval = true)
	@DeprecatedConfigurationProperty(replacement = "management.endpoint.locks.access",
			reason = "Force-unlock is the locks endpoint's write operation, governed by Boot's endpoint access "
					+ "(read-only by default); set management.endpoint.locks.access=unrestricted to offer it",
			since = "0.1.0")
	public boolean isForceUnlockEnabled() {
		return this.forceUnlockEnabled;
	}

	@Deprecated(since = "0.1.0", forRemoval = true)
	public void setForceUnlockEnabled(boolean forceUnlockEnabled) {
		this.forceUnlockEnabled = forceUnlockEnabled;
	}

}
