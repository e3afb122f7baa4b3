package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.quorumlock.LockRequest;

/**
 * A request with every option resolved (request, then per-name instance, then defaults)
 * and its Redis key names computed.
 */
record ResolvedRequest(LockRequest request, List<String> redisKeys, Duration lease, Duration waitAtMost, boolean renew,
		Optional<Duration> holdAtMost) {

	String describe() {
		String name = this.request.name().isEmpty() ? this.request.label() : this.request.name();
		return "lock " + ("unnamed".equals(name) ? "" : "'" + name + "' ") + "key "
				+ ((this.redisKeys.size() == 1) ? "'" + this.redisKeys.get(0) + "'" : this.redisKeys.toString());
	}

}
