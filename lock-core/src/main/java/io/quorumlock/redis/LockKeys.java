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

	/**
	 * The start of the keys quorumlock keeps on the masters for itself, under the prefix
	 * and without a name: the restart guard's dataset marker and pending record, the ACL
	 * probe ({@code quorumlock:marker}, {@code quorumlock:pending},
	 * {@code quorumlock:probe}). No lock key may be one of them or derive from one.
	 */
	static final String OWN = "quorumlock:";

	/** Whether a key of a lock without a name is reserved for quorumlock's own keys. */
	static boolean isReserved(String name, String key) {
		return name.isEmpty() && key.startsWith(OWN);
	}

	/** Whether a Redis key is, or derives from, one of quorumlock's own keys. */
	static boolean isOwnKey(String prefix, String redisKey) {
		return redisKey.startsWith(prefix + '{' + OWN);
	}

	static String lockKey(String prefix, String name, String key) {
		// one concatenation: the string alone, no builder (once per request)
		return name.isEmpty() ? prefix + '{' + key + '}' : prefix + name + ':' + '{' + key + '}';
	}

	/**
	 * The lock key on a Redis Cluster, where every name derived from it must hash to the
	 * same slot. That holds whenever the lock key's hash tag is not empty, since each
	 * derived name only adds a suffix after the closing brace; a key starting with
	 * {@code '}'} would make it empty (Redis then hashes the whole name, so the lock key
	 * and its fence counter land in different slots). Such a key is written as
	 * {@code prefix[name:]{#key}#}: its tag is {@code #}, and ending in {@code #} (not
	 * {@code '}'}) it can equal neither another key's lock key nor a derived name. Only
	 * on a cluster (where the prefix and the name contain no brace), so the names other
	 * deployments use never change.
	 */
	static String clusterLockKey(String prefix, String name, String key) {
		if (key.isEmpty() || key.charAt(0) != '}') {
			return lockKey(prefix, name, key);
		}
		StringBuilder sb = new StringBuilder(prefix.length() + name.length() + key.length() + 5);
		sb.append(prefix);
		if (!name.isEmpty()) {
			sb.append(name).append(':');
		}
		return sb.append("{#").append(key).append("}#").toString();
	}

	/** Suffix of a permit slot's key, before the slot's number. */
	private static final String PERMIT = ":permit:";

	/**
	 * Channel a release is published on, so waiters retry at once. A permit slot's
	 * release publishes on its lock key's channel, where the permit's waiters listen.
	 */
	static String channel(String lockKey) {
		return permitBase(lockKey) + ":released";
	}

	/** The key of slot {@code slot} of a lock key's permits: same hash slot. */
	static String permitKey(String lockKey, int slot) {
		return lockKey + PERMIT + slot;
	}

	/**
	 * The lock key of a permit slot's key, else the key itself. A slot's suffix follows
	 * the hash tag's closing brace, which no derived suffix contains, so a caller's key
	 * (inside the tag) can never pass for a slot.
	 */
	static String permitBase(String key) {
		int tag = key.lastIndexOf('}');
		int at = (tag < 0) ? -1 : key.indexOf(PERMIT, tag);
		return (at < 0) ? key : key.substring(0, at);
	}

	/**
	 * The queue of waiters a release hands the key to, on a standalone master
	 * ({@link io.quorumlock.redis.node.Script#QUEUE}).
	 */
	static String queueKey(String lockKey) {
		return lockKey + ":queue";
	}

	/** Per-key fencing counter. */
	static String fenceKey(String lockKey) {
		return lockKey + ":fence";
	}

}
