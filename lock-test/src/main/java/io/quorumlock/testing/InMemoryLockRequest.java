package io.quorumlock.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;

/**
 * A request with its options resolved, and its keys named as the Redis engine names them
 * under the default prefix: {@code lock:} then the name and a colon, then the key in a
 * hash tag.
 */
final class InMemoryLockRequest {

	private static final String PREFIX = "lock:";

	private final LockRequest request;

	private final Duration lease;

	private final Duration waitAtMost;

	private final boolean renew;

	private final Optional<Duration> holdAtMost;

	private final Duration holdAtLeast;

	private final List<String> lockKeys;

	InMemoryLockRequest(LockRequest request, LockOptions options) {
		this.request = request;
		this.lease = options.lease().orElseThrow();
		this.waitAtMost = options.waitAtMost().orElseThrow();
		this.renew = options.renew().orElseThrow();
		this.holdAtMost = options.holdAtMost();
		this.holdAtLeast = options.holdAtLeast().orElse(Duration.ZERO);
		if (this.lease.isNegative() || this.lease.isZero()) {
			throw new IllegalArgumentException(describe(request) + ": lease must be positive, was " + this.lease);
		}
		if (this.waitAtMost.isNegative()) {
			throw new IllegalArgumentException(
					describe(request) + ": waitAtMost must not be negative, was " + this.waitAtMost);
		}
		List<String> keys = new ArrayList<>(request.keys().size());
		String prefix = PREFIX + (request.name().isEmpty() ? "" : request.name() + ":");
		for (String key : request.keys()) {
			keys.add(prefix + "{" + key + "}");
		}
		this.lockKeys = List.copyOf(keys);
	}

	LockRequest request() {
		return this.request;
	}

	Duration lease() {
		return this.lease;
	}

	Duration waitAtMost() {
		return this.waitAtMost;
	}

	long waitNanos() {
		return this.waitAtMost.toNanos();
	}

	boolean renew() {
		return this.renew;
	}

	Optional<Duration> holdAtMost() {
		return this.holdAtMost;
	}

	Duration holdAtLeast() {
		return this.holdAtLeast;
	}

	List<String> lockKeys() {
		return this.lockKeys;
	}

	String describe() {
		return describe(this.request, this.lockKeys);
	}

	private static String describe(LockRequest request) {
		return "lock " + (request.name().isEmpty() ? "" : "'" + request.name() + "' ") + "keys " + request.keys();
	}

	private static String describe(LockRequest request, List<String> lockKeys) {
		String name = request.label();
		return "lock " + ("unnamed".equals(name) ? "" : "'" + name + "' ") + "key "
				+ ((lockKeys.size() == 1) ? "'" + lockKeys.get(0) + "'" : lockKeys.toString());
	}

}
