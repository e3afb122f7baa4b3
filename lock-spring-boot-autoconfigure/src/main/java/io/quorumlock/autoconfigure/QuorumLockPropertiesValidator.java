package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.Map;

import io.quorumlock.LockRules;

/**
 * Checks {@code quorumlock.*} before the engine is built, so that a bad value stops the
 * start-up with one message naming the property and the value.
 */
final class QuorumLockPropertiesValidator {

	private QuorumLockPropertiesValidator() {
	}

	/**
	 * @param nodeTimeout the node timeout the engine will be built with: the property's
	 * value when set, else the mode's default ({@link NodeTimeouts})
	 * @throws InvalidQuorumLockPropertyException for the first bad value
	 */
	static void validate(QuorumLockProperties properties, Duration nodeTimeout) {
		validate(properties, "quorumlock.node-timeout", nodeTimeout);
		QuorumNodes.toRedisUris(properties.getNodes());
		checkRejoinDelay(properties);
	}

	/**
	 * Check {@code quorumlock.*} for etcd mode: the same rules, with the etcd request
	 * timeout in the node timeout's place (a renewal every lease/3 must fit in it), and
	 * the etcd credentials.
	 * @throws InvalidQuorumLockPropertyException for the first bad value
	 */
	static void validateEtcd(QuorumLockProperties properties) {
		EtcdProperties etcd = properties.getEtcd();
		validate(properties, "quorumlock.etcd.request-timeout", etcd.getRequestTimeout());
		if (etcd.getUsername() != null && etcd.getPassword() == null) {
			throw new InvalidQuorumLockPropertyException("quorumlock.etcd.password", "",
					"must be set with quorumlock.etcd.username (" + etcd.getUsername() + ")");
		}
		if (etcd.getUsername() == null && etcd.getPassword() != null) {
			throw new InvalidQuorumLockPropertyException("quorumlock.etcd.username", "",
					"must be set with quorumlock.etcd.password");
		}
	}

	private static void validate(QuorumLockProperties properties, String timeoutProperty, Duration timeout) {
		if (properties.getKeyPrefix() == null) {
			throw new InvalidQuorumLockPropertyException("quorumlock.key-prefix", "", "must not be null");
		}
		Duration nodeTimeout = positive(timeoutProperty, timeout);
		double drift = properties.getClockDriftFactor();
		if (!(drift >= 0 && drift < 0.5)) {
			throw new InvalidQuorumLockPropertyException("quorumlock.clock-drift-factor", Double.toString(drift),
					"must be in [0, 0.5): it is the share of each lease set aside for clock drift between nodes");
		}
		RetryDelay retry = properties.getRetryDelay();
		notNegative("quorumlock.retry-delay.min", retry.getMin());
		notNegative("quorumlock.retry-delay.max", retry.getMax());
		if (retry.getMax().compareTo(retry.getMin()) < 0) {
			throw new InvalidQuorumLockPropertyException("quorumlock.retry-delay",
					text(retry.getMin()) + ".." + text(retry.getMax()), "max must not be below min");
		}
		notNegative("quorumlock.retry-budget", properties.getRetryBudget());
		notNegative("quorumlock.commit-guard.margin", properties.getCommitGuard().getMargin());
		if (properties.getRejoinDelay() != null) {
			notNegative("quorumlock.rejoin-delay", properties.getRejoinDelay());
		}
		if (properties.getSyncReplicas() < 0) {
			throw new InvalidQuorumLockPropertyException("quorumlock.sync-replicas",
					Integer.toString(properties.getSyncReplicas()), "must not be negative");
		}
		if (properties.getMaxKeyLength() < 1) {
			throw new InvalidQuorumLockPropertyException("quorumlock.max-key-length",
					Integer.toString(properties.getMaxKeyLength()), "must be positive");
		}
		Duration counterTtl = positive("quorumlock.fencing.counter-ttl", properties.getFencing().getCounterTtl());
		LockRules.fencingCounterTtlProblem(counterTtl).ifPresent((problem) -> {
			throw new InvalidQuorumLockPropertyException("quorumlock.fencing.counter-ttl", text(counterTtl), problem);
		});
		Duration lease = positive("quorumlock.lease", properties.getLease());
		notNegative("quorumlock.wait-at-most", properties.getWaitAtMost());
		checkLease(timeoutProperty, "quorumlock.lease", lease, nodeTimeout);
		checkHold("quorumlock.hold-at-most", properties.getHoldAtMost(), "quorumlock.lease", lease);
		checkHoldAtLeast("quorumlock.hold-at-least", properties.getHoldAtLeast(), "quorumlock.lease", lease,
				properties.isRenew());
		for (Map.Entry<String, Instance> entry : properties.getInstances().entrySet()) {
			checkInstance("quorumlock.instances." + entry.getKey(), entry.getKey(), entry.getValue(), properties,
					timeoutProperty, nodeTimeout);
		}
	}

	/**
	 * In quorum mode an explicit, non-zero {@code rejoin-delay} must cover every
	 * configured lease (the annotated ones are checked when the engine is built).
	 */
	private static void checkRejoinDelay(QuorumLockProperties properties) {
		Duration rejoinDelay = properties.getRejoinDelay();
		if (properties.getNodes().size() < 2 || rejoinDelay == null || rejoinDelay.isZero()) {
			return;
		}
		String longestProperty = "quorumlock.lease";
		Duration longest = properties.getLease();
		for (Map.Entry<String, Instance> entry : properties.getInstances().entrySet()) {
			Duration lease = entry.getValue().getLease();
			if (lease != null && lease.compareTo(longest) > 0) {
				longest = lease;
				longestProperty = "quorumlock.instances." + entry.getKey() + ".lease";
			}
		}
		if (rejoinDelay.compareTo(longest) < 0) {
			throw new InvalidQuorumLockPropertyException("quorumlock.rejoin-delay", text(rejoinDelay),
					"must not be shorter than " + longestProperty + " (" + text(longest)
							+ "): a master restarted empty would vote again while a lease taken before the restart "
							+ "may still be held; set it to at least " + text(longest)
							+ " on every instance, leave it unset, or 0s to turn the restart guard off");
		}
	}

	private static void checkInstance(String prefix, String name, Instance instance, QuorumLockProperties properties,
			String timeoutProperty, Duration nodeTimeout) {
		if (name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
			throw new InvalidQuorumLockPropertyException(prefix, name,
					"a lock name must not contain '{' or '}': they would move the Redis Cluster hash slot");
		}
		String leaseProperty = (instance.getLease() != null) ? prefix + ".lease" : "quorumlock.lease";
		Duration lease = (instance.getLease() != null) ? positive(leaseProperty, instance.getLease())
				: properties.getLease();
		if (instance.getWaitAtMost() != null) {
			notNegative(prefix + ".wait-at-most", instance.getWaitAtMost());
		}
		checkLease(timeoutProperty, leaseProperty, lease, nodeTimeout);
		if (instance.getHoldAtMost() != null) {
			checkHold(prefix + ".hold-at-most", instance.getHoldAtMost(), leaseProperty, lease);
		}
		else {
			checkHold("quorumlock.hold-at-most", properties.getHoldAtMost(), leaseProperty, lease);
		}
		boolean renew = (instance.getRenew() != null) ? instance.getRenew() : properties.isRenew();
		if (instance.getHoldAtLeast() != null) {
			checkHoldAtLeast(prefix + ".hold-at-least", instance.getHoldAtLeast(), leaseProperty, lease, renew);
		}
		else {
			checkHoldAtLeast("quorumlock.hold-at-least", properties.getHoldAtLeast(), leaseProperty, lease, renew);
		}
	}

	/**
	 * A minimum hold past the lease only works if the lease is renewed until then.
	 */
	private static void checkHoldAtLeast(String holdProperty, Duration holdAtLeast, String leaseProperty,
			Duration lease, boolean renew) {
		if (holdAtLeast == null) {
			return;
		}
		notNegative(holdProperty, holdAtLeast);
		LockRules.holdAtLeastProblem(holdAtLeast, lease, renew).ifPresent((problem) -> {
			throw new InvalidQuorumLockPropertyException(holdProperty, text(holdAtLeast),
					problem + " (the lease is " + leaseProperty + ")");
		});
	}

	private static void checkLease(String timeoutProperty, String leaseProperty, Duration lease, Duration nodeTimeout) {
		LockRules.leaseProblem(lease, nodeTimeout).ifPresent((problem) -> {
			throw new InvalidQuorumLockPropertyException(timeoutProperty, text(nodeTimeout),
					problem + " (the lease is " + leaseProperty + ")");
		});
	}

	private static void checkHold(String holdProperty, Duration holdAtMost, String leaseProperty, Duration lease) {
		if (holdAtMost == null) {
			return;
		}
		positive(holdProperty, holdAtMost);
		LockRules.holdAtMostProblem(holdAtMost, lease).ifPresent((problem) -> {
			throw new InvalidQuorumLockPropertyException(holdProperty, text(holdAtMost),
					problem + " (the lease is " + leaseProperty + ")");
		});
	}

	private static Duration positive(String property, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidQuorumLockPropertyException(property, text(value), "must be positive");
		}
		return value;
	}

	private static Duration notNegative(String property, Duration value) {
		if (value == null || value.isNegative()) {
			throw new InvalidQuorumLockPropertyException(property, text(value), "must not be negative");
		}
		return value;
	}

	/** A duration as a user would write it: 50ms, 30s, else ISO-8601. */
	static String text(Duration duration) {
		if (duration == null) {
			return "";
		}
		if (duration.toNanosPart() % 1_000_000 == 0) {
			long millis = duration.toMillis();
			return (millis % 1000 == 0 && millis != 0) ? (millis / 1000) + "s" : millis + "ms";
		}
		return duration.toString();
	}

}
