package io.quorumlock.redis;

import java.util.OptionalInt;

/**
 * What the lock modes change outside the rounds: fencing tokens are issued to exclusive
 * holders only. A token orders the holders of one key, one after another; shared holders
 * coexist, and the holders of a key's permits hold different slots at once, so neither
 * has a place in that order.
 */
final class LockModes {

	static final String NO_SHARED_FENCING = "fencing tokens are issued to exclusive holders only: "
			+ "shared holders of a key hold it at the same time, so no order of tokens can tell them apart";

	private LockModes() {
	}

	/** The mode's name for status and metrics: exclusive, shared or permit. */
	static String name(ResolvedRequest request) {
		if (request.request().permits() > 1) {
			return "permit";
		}
		return request.isShared() ? "shared" : "exclusive";
	}

	/** The permit slot a permit lease owns, else empty. */
	static OptionalInt slot(ResolvedRequest request) {
		if (request.request().permits() <= 1) {
			return OptionalInt.empty();
		}
		String key = request.redisKeys().get(0);
		return OptionalInt.of(Integer.parseInt(key.substring(LockKeys.permitBase(key).length() + 8)));
	}

	/** Why this lease has no fencing token, or null if it may have one. */
	static String fencingRefusal(RedisLease lease) {
		ResolvedRequest request = lease.request();
		if (request.isShared()) {
			return request.describe() + ": no fencing token for a shared lease; " + NO_SHARED_FENCING;
		}
		if (request.request().permits() > 1) {
			return request.describe() + ": no fencing token for a lease of one of " + request.request().permits()
					+ " permits: fencing tokens are issued to exclusive holders only, and permit holders hold "
					+ "different slots at the same time";
		}
		return null;
	}

	/**
	 * @throws UnsupportedOperationException if this lease may have no fencing token
	 */
	static void checkFencing(RedisLease lease) {
		String refusal = fencingRefusal(lease);
		if (refusal != null) {
			throw new UnsupportedOperationException(refusal);
		}
	}

}
