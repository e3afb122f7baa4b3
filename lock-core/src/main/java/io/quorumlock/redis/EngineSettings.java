package io.quorumlock.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.resource.ClientResources;
import io.quorumlock.LockListener;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRules;
import java.util.ArrayList;

/**
 * An engine's settings, checked and immutable: what {@link QuorumLockEngine.Builder}
 * collected, each bad value refused with its name and its figures, and the restart guard
 * derived from the declared leases.
 *
 * @param nodes the listed nodes; empty on a cluster
 * @param clusterSeeds the seeds of a Redis Cluster in single mode, else empty
 * @param defaults the defaults with every option resolved
 * @param guard the restart guard in force
 * @param clientResources shared Lettuce resources, or null to own them
 * @param sslOptions TLS settings, or null for Lettuce's defaults
 * @param asyncExecutor where callers' continuations run, or null for the common pool
 * @param freshRunIds run_ids of server processes an operator declared brand new
 * @param evictionAllowed whether masters that can evict lock keys count anyway
 * @param retryBudget how long a call retries rounds that no answer decided, beyond its
 * wait
 */
record EngineSettings(List<RedisURI> nodes, List<RedisURI> clusterSeeds, String keyPrefix, LockOptions defaults,
		Map<String, LockOptions> instances, Duration nodeTimeout, double clockDriftFactor, Duration retryMin,
		Duration retryMax, List<LockListener> listeners, ClientResources clientResources, LongSupplier nanoClock,
		OnLeaseLost onLeaseLost, RestartGuard guard, int syncReplicas, Duration fencingCounterTtl, int maxKeyLength,
		SslOptions sslOptions, Executor asyncExecutor, Set<String> freshRunIds, boolean evictionAllowed,
		Duration retryBudget) {

	private static final System.Logger log = System.getLogger(EngineSettings.class.getName());

	/** Built in defaults: lease 30 s, no wait, renew. */
	static final LockOptions BUILT_IN = LockOptions.none()
		.lease(QuorumLockEngine.Builder.DEFAULT_LEASE)
		.waitAtMost(Duration.ZERO)
		.renew(true);

	/**
	 * Check what a builder collected.
	 * @throws IllegalArgumentException for a bad setting, naming it and its value
	 */
	static EngineSettings of(EngineBuilder b) {
		List<RedisURI> all = new ArrayList<>();
		for (String uri : b.uris) {
			all.add(NodeUri.parse(uri));
		}
		all.addAll(b.redisUris);
		if (!b.clusterSeeds.isEmpty()) {
			checkCluster(b, all);
		}
		else if (all.isEmpty()) {
			throw new IllegalArgumentException("nodes: at least one Redis node is required, got none");
		}
		Set<String> seen = new HashSet<>();
		for (RedisURI uri : all) {
			String address = uri.getHost() + ":" + uri.getPort();
			if (!seen.add(address.toLowerCase(Locale.ROOT))) {
				throw new IllegalArgumentException("nodes: " + address + " is listed twice");
			}
		}
		if (all.size() > 1 && all.size() % 2 == 0) {
			log.log(Level.WARNING, "nodes: " + all.size() + " nodes tolerate no more failures than " + (all.size() - 1)
					+ "; an odd number of independent masters is recommended");
		}
		if (b.nodeTimeout.isNegative() || b.nodeTimeout.isZero()) {
			throw new IllegalArgumentException("nodeTimeout must be positive, was " + b.nodeTimeout);
		}
		if (!(b.clockDriftFactor >= 0 && b.clockDriftFactor < 0.5)) {
			throw new IllegalArgumentException("clockDriftFactor must be in [0, 0.5), was " + b.clockDriftFactor);
		}
		if (b.retryMin.isNegative() || b.retryMax.compareTo(b.retryMin) < 0) {
			throw new IllegalArgumentException("retryDelay must satisfy 0 <= min <= max, was " + b.retryMin.toMillis()
					+ " ms.." + b.retryMax.toMillis() + " ms");
		}
		if (b.retryBudget.isNegative()) {
			throw new IllegalArgumentException("retryBudget (quorumlock.retry-budget) must be zero or more, was "
					+ b.retryBudget.toMillis() + " ms");
		}
		LockRules.fencingCounterTtlProblem(b.fencingCounterTtl).ifPresent((problem) -> {
			throw new IllegalArgumentException("fencingCounterTtl (quorumlock.fencing.counter-ttl) " + problem);
		});
		if (b.maxKeyLength < 1) {
			throw new IllegalArgumentException("maxKeyLength must be positive, was " + b.maxKeyLength);
		}
		LockOptions effective = b.defaults.orElse(BUILT_IN);
		LockRules.check("defaults", effective, b.nodeTimeout);
		b.instances.forEach((name, options) -> LockRules.check("instance '" + name + "'", options.orElse(effective),
				b.nodeTimeout));
		Map<String, Duration> leases = new LinkedHashMap<>();
		// with guardFromDeclaredLeases, the default lease counts only when something
		// relies on it: an instance without a lease of its own, or nothing else declared
		if (!b.guardFromDeclaredLeases || (b.declaredLeases.isEmpty() && b.instances.isEmpty())
				|| b.instances.values().stream().anyMatch((options) -> options.lease().isEmpty())) {
			leases.put("defaults", effective.lease().orElseThrow());
		}
		b.instances.forEach((name, options) -> leases.put("instance '" + name + "'",
				options.orElse(effective).lease().orElseThrow()));
		b.declaredLeases.stream().max(Duration::compareTo).ifPresent((lease) -> leases.put("a declared lease", lease));
		int nodeCount = b.clusterSeeds.isEmpty() ? all.size() : 1;
		RestartGuard guard = RestartGuard.of(nodeCount, b.rejoinDelay, leases);
		return new EngineSettings(List.copyOf(all), List.copyOf(b.clusterSeeds), b.keyPrefix, effective,
				Map.copyOf(b.instances), b.nodeTimeout, b.clockDriftFactor, b.retryMin, b.retryMax,
				List.copyOf(b.listeners), b.clientResources, b.nanoClock, b.onLeaseLost, guard, b.syncReplicas,
				b.fencingCounterTtl, b.maxKeyLength, b.sslOptions, b.asyncExecutor, Set.copyOf(b.freshRunIds),
				b.evictionAllowed, b.retryBudget);
	}

	private static void checkCluster(EngineBuilder b, List<RedisURI> nodes) {
		if (!nodes.isEmpty()) {
			throw new IllegalArgumentException("cluster: a Redis Cluster is one node (single mode) and cannot be "
					+ "combined with nodes, got " + nodes.size() + " node(s) as well");
		}
		if (b.syncReplicas > 0) {
			throw new IllegalArgumentException("syncReplicas " + b.syncReplicas
					+ " is not supported on a Redis Cluster: WAIT would not reach the master that took the lock");
		}
		if (b.keyPrefix.indexOf('{') >= 0 || b.keyPrefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("keyPrefix '" + b.keyPrefix + "' must not contain '{' or '}' "
					+ "on a Redis Cluster: the lock key's own hash tag must decide its slot");
		}
	}

	/** Single mode on a Redis Cluster. */
	boolean isCluster() {
		return !this.clusterSeeds.isEmpty();
	}

	/**
	 * Lettuce's own bound on a command and on a connect: ten node timeouts, at least a
	 * second, a safety net behind the per-round node timeout.
	 */
	Duration commandTimeout() {
		Duration ten = this.nodeTimeout.multipliedBy(10);
		return (ten.compareTo(Duration.ofSeconds(1)) > 0) ? ten : Duration.ofSeconds(1);
	}

}
