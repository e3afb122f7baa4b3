package io.quorumlock.autoconfigure;

import io.quorumlock.LockOptions;

/**
 * The {@link LockOptions} that {@code quorumlock.*} and
 * {@code quorumlock.instances.<name>.*} give a lock.
 */
final class ConfiguredLockOptions {

	private ConfiguredLockOptions() {
	}

	/**
	 * The global defaults, every option set except an unbounded hold and a zero minimum
	 * hold.
	 */
	static LockOptions global(QuorumLockProperties properties) {
		LockOptions options = LockOptions.none()
			.lease(properties.getLease())
			.waitAtMost(properties.getWaitAtMost())
			.renew(properties.isRenew());
		if (properties.getHoldAtLeast() != null && !properties.getHoldAtLeast().isZero()) {
			options = options.holdAtLeast(properties.getHoldAtLeast());
		}
		return (properties.getHoldAtMost() != null) ? options.holdAtMost(properties.getHoldAtMost()) : options;
	}

	/** The options one instance sets itself. */
	static LockOptions instance(Instance instance) {
		LockOptions options = LockOptions.none();
		if (instance.getLease() != null) {
			options = options.lease(instance.getLease());
		}
		if (instance.getWaitAtMost() != null) {
			options = options.waitAtMost(instance.getWaitAtMost());
		}
		if (instance.getRenew() != null) {
			options = options.renew(instance.getRenew());
		}
		if (instance.getHoldAtMost() != null) {
			options = options.holdAtMost(instance.getHoldAtMost());
		}
		if (instance.getHoldAtLeast() != null) {
			options = options.holdAtLeast(instance.getHoldAtLeast());
		}
		return options;
	}

	/** What a lock of the given name gets from configuration: instance, then global. */
	static LockOptions forName(QuorumLockProperties properties, String name) {
		Instance instance = properties.getInstances().get(name);
		LockOptions global = global(properties);
		return (instance != null) ? instance(instance).orElse(global) : global;
	}

}
