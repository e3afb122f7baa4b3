package io.quorumlock;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The rules a {@link LockRequest} checks when it is built: keys, name, and mode with
 * permits; each refusal quotes what it refuses.
 */
final class LockRequestChecks {

	private LockRequestChecks() {
	}

	static String checkKey(String key, String where) {
		if (key == null) {
			throw new LockKeyException("lock key must not be null" + where);
		}
		if (key.isEmpty()) {
			throw new LockKeyException("lock key must not be empty" + where);
		}
		return key;
	}

	/** The keys, checked, in sorted order. */
	static List<String> sortedKeys(Collection<String> keys) {
		if (keys == null || keys.isEmpty()) {
			throw new LockKeyException("lock keys must not be " + ((keys == null) ? "null" : "an empty collection"));
		}
		List<String> sorted = new ArrayList<>(keys.size());
		Set<String> seen = new HashSet<>();
		for (String key : keys) {
			checkKey(key, " in " + keys);
			if (!seen.add(key)) {
				throw new LockKeyException("lock key '" + key + "' appears twice in " + keys);
			}
			sorted.add(key);
		}
		sorted.sort(null);
		return List.copyOf(sorted);
	}

	static void checkName(String name) {
		Objects.requireNonNull(name, "'name' must not be null");
		if (name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
			throw new IllegalArgumentException("lock name '" + name
					+ "' must not contain '{' or '}': they would move the Redis Cluster hash slot");
		}
	}

	static void checkShape(List<String> keys, LockMode mode, int permits) {
		Objects.requireNonNull(mode, "'mode' must not be null");
		if (permits < 1) {
			throw new IllegalArgumentException("permits must be at least 1, was " + permits + " (lock key "
					+ keys.get(0) + "): 1 is a plain lock, k > 1 lets at most k holders in at once");
		}
		if (permits > 1 && mode == LockMode.SHARED) {
			throw new IllegalArgumentException("permits = " + permits + " with mode SHARED (lock key " + keys.get(0)
					+ "): permits bound the holders of an EXCLUSIVE lock; shared holders are unbounded, "
					+ "so use one or the other");
		}
		if (permits > 1 && keys.size() > 1) {
			throw new IllegalArgumentException("permits = " + permits + " with " + keys.size() + " keys " + keys
					+ ": permits apply to one key at a time");
		}
	}

}
