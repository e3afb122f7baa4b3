package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.quorumlock.LockMode;
import io.quorumlock.LockRequest;

/**
 * A request with every option resolved (request, then per-name instance, then defaults)
 * and its Redis key names computed. {@code holdAtLeast} is zero when the lock is released
 * at once.
 */
record ResolvedRequest(LockRequest request, List<String> redisKeys, Duration lease, Duration waitAtMost, boolean renew,
		Optional<Duration> holdAtMost, Duration holdAtLeast) {

	/** Without a minimum hold. */
	ResolvedRequest(LockRequest request, List<String> redisKeys, Duration lease, Duration waitAtMost, boolean renew,
			Optional<Duration> holdAtMost) {
		this(request, redisKeys, lease, waitAtMost, renew, holdAtMost, Duration.ZERO);
	}

	/** Whether it asks for a shared hold ({@link LockMode#SHARED}). */
	boolean isShared() {
		return this.request.mode() == LockMode.SHARED;
	}

	String describe() {
		// the label: the name unless one was given, as the lock tag and the endpoint say
		String name = this.request.label();
		return "lock " + ("unnamed".equals(name) ? "" : "'" + name + "' ") + "key "
				+ ((this.redisKeys.size() == 1) ? "'" + this.redisKeys.get(0) + "'" : this.redisKeys.toString())
				+ (isShared() ? " (shared)" : "");
	}

}
