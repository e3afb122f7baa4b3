package io.quorumlock.redis;

import io.quorumlock.CurrentLease;
import io.quorumlock.LockUpgradeException;

/**
 * Re-entry into a shared lease in whose scope this thread runs ({@link CurrentLease}): a
 * shared request for the same keys re-enters it; an exclusive request for any of its keys
 * is an upgrade, which is refused. A permit request re-enters the permit in scope of the
 * same key rather than take a second slot. (An exclusive lease in scope is found through
 * its local gates by {@link Reentry}, and a shared request re-enters it, counted as its
 * exclusive hold.)
 */
final class SharedReentry {

	private SharedReentry() {
	}

	/**
	 * The shared lease in scope holding the request's keys, or null.
	 * @throws LockUpgradeException if the request is exclusive and a shared lease in
	 * scope holds one of its keys
	 */
	static RedisLease inScope(ResolvedRequest resolved) {
		RedisLease[] found = new RedisLease[1];
		CurrentLease.anyBound((bound) -> {
			RedisLease lease = (bound instanceof RedisLease redis) ? redis
					: (bound instanceof ReentrantHold hold) ? hold.lease() : null;
			if (lease == null || lease.isReleased()) {
				return false;
			}
			if (resolved.request().permits() > 1) {
				// a permit in scope: the same key's permit request re-enters it
				if (lease.request().request().permits() > 1 && LockKeys.permitBase(lease.request().redisKeys().get(0))
					.equals(resolved.redisKeys().get(0))) {
					found[0] = lease;
					return true;
				}
				return false;
			}
			if (!lease.request().isShared()) {
				return false;
			}
			if (resolved.isShared() ? lease.request().redisKeys().equals(resolved.redisKeys())
					: lease.request().redisKeys().stream().anyMatch(resolved.redisKeys()::contains)) {
				found[0] = lease;
				return true;
			}
			return false;
		});
		if (found[0] != null && !resolved.isShared() && resolved.request().permits() == 1) {
			throw new LockUpgradeException(resolved.describe() + ": this thread holds " + found[0].request().redisKeys()
					+ " shared, and a shared lease cannot be upgraded to exclusive; "
					+ "release it first, or lock exclusively from the start (an exclusive holder may re-enter "
					+ "as shared)");
		}
		return found[0];
	}

}
