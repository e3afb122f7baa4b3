package io.quorumlock.redis.node;

import io.lettuce.core.SetArgs;

/**
 * {@code NX PX lease} for a lease, the last one kept: a service uses a few leases, and
 * Lettuce only reads the arguments. Immutable, published through a volatile field.
 */
public record LeaseArgs(long leaseMillis, SetArgs args) {

	/** The arguments for {@code leaseMillis}: {@code last}'s if it has the same lease. */
	static LeaseArgs of(LeaseArgs last, long leaseMillis) {
		return (last != null && last.leaseMillis == leaseMillis) ? last
				: new LeaseArgs(leaseMillis, SetArgs.Builder.nx().px(leaseMillis));
	}

}
