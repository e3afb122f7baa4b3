package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.quorumlock.LockKeyException;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.LockRules;

/**
 * Request resolution: each option from the request, else the per-name instance options,
 * else the engine's defaults; the Redis key names; and the checks a request must pass
 * before anything is sent ({@link LockRules}, the key length, the restart guard).
 */
final class RequestResolver {

	private final String keyPrefix;

	private final LockOptions defaults;

	private final Map<String, LockOptions> instances;

	private final Duration nodeTimeout;

	private final int maxKeyLength;

	/** Single mode on a Redis Cluster: lock keys must hash to one non-empty tag. */
	private final boolean cluster;

	private final RestartGuard guard;

	RequestResolver(EngineSettings settings) {
		this.keyPrefix = settings.keyPrefix();
		this.defaults = settings.defaults();
		this.instances = settings.instances();
		this.nodeTimeout = settings.nodeTimeout();
		this.maxKeyLength = settings.maxKeyLength();
		this.cluster = settings.isCluster();
		this.guard = settings.guard();
	}

	/** Resolve options (request, then instance by name, then defaults) and check them. */
	ResolvedRequest resolve(LockRequest request) {
		LockOptions options = request.options()
			.orElse(this.instances.getOrDefault(request.name(), LockOptions.none()))
			.orElse(this.defaults);
		List<String> keys = request.keys();
		List<String> redisKeys;
		if (keys.size() == 1) {
			redisKeys = List.of(redisKey(request, keys.get(0))); // no array for one key
		}
		else {
			String[] each = new String[keys.size()];
			for (int i = 0; i < each.length; i++) {
				each[i] = redisKey(request, keys.get(i));
			}
			redisKeys = List.of(each);
		}
		ResolvedRequest resolved = new ResolvedRequest(request, redisKeys, options.lease().orElseThrow(),
				options.waitAtMost().orElseThrow(), options.renew().orElseThrow(), options.holdAtMost(),
				options.holdAtLeast().orElse(Duration.ZERO));
		Optional<String> problem = LockRules.problem(options, this.nodeTimeout);
		if (problem.isPresent()) {
			throw new IllegalArgumentException(resolved.describe() + ": " + problem.get());
		}
		this.guard.check(resolved);
		return resolved;
	}

	/** The request's description for a message, even if it does not resolve. */
	private String redisKey(LockRequest request, String key) {
		if (key.length() > this.maxKeyLength) {
			throw new LockKeyException(tooLong(request, key));
		}
		if (LockKeys.isReserved(request.name(), key)) {
			throw new LockKeyException("lock key '" + key + "': keys starting with '" + LockKeys.OWN
					+ "' on a lock without a name are reserved for quorumlock's own records on the masters (the "
					+ "restart guard's dataset marker and pending record); use another key, or give the lock a name");
		}
		return this.cluster ? LockKeys.clusterLockKey(this.keyPrefix, request.name(), key)
				: LockKeys.lockKey(this.keyPrefix, request.name(), key);
	}

	String describeQuietly(LockRequest request) {
		try {
			return resolve(request).describe();
		}
		catch (RuntimeException ex) {
			return request.toString();
		}
	}

	private String tooLong(LockRequest request, String key) {
		String name = request.name().isEmpty() ? "" : "'" + request.name() + "' ";
		return "lock " + name + "key '" + key.substring(0, Math.min(32, key.length())) + "...' is " + key.length()
				+ " characters long, above the maximum of " + this.maxKeyLength
				+ " (quorumlock.max-key-length, QuorumLockEngine.Builder.maxKeyLength)";
	}

}
