package io.quorumlock;

import java.util.List;

/**
 * Operator actions on a registry, for the actuator endpoint. Use with care: a forced
 * unlock lets a second holder in while the first may still be working.
 */
public interface RegistryAdmin {

	/**
	 * Delete a lock key on every node whoever holds it, and wake its waiters.
	 * @param redisKey the full Redis key, which must start with the registry's key prefix
	 * @return how many nodes had the key
	 * @throws IllegalArgumentException if the key is outside the registry's prefix
	 */
	int forceUnlock(String redisKey);

	/**
	 * Lock keys under the registry's prefix that have no TTL (a leak: they would never
	 * expire), found with a bounded {@code SCAN} on every node.
	 * @param limit the most keys to report
	 * @return {@code host:port key} lines
	 */
	List<String> keysWithoutTtl(int limit);

}
