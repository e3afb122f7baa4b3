package io.quorumlock.redis;

/**
 * Redis names for one lock. The lock key is prefix, then the name and a colon if there is
 * a name, then the caller's key wrapped in a Redis Cluster hash tag: prefix
 * {@code lock:}, name {@code orders}, key {@code 42} gives {@code lock:orders:{42}}.
 * Every other name derives from the lock key by a suffix after the tag, so all of them
 * hash to the same slot.
 */
final class LockKeys {

	private LockKeys() {
	}

	static String lockKey(String prefix, String name, String key) {
		StringBuilder sb = new StringBuilder(prefix.length() + name.length() + key.length() + 3);
		sb.append(prefix);
		if (!name.isEmpty()) {
			sb.append(name).append(':');
		}
		return sb.append('{').append(key).append('}').toString();
	}

	static String clusterLockKey(String prefix, String name, String key) {
		return lockKey(prefix, name, key);
	}

	/** Channel a release is published on, so waiters retry at once. */
	static String channel(String lockKey) {
		return lockKey + ":released";
	}

	/** Per-key fencing counter. */
	static String fenceKey(String lockKey) {
		return lockKey + ":fence";
	}

}
