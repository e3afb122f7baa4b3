package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;
import io.quorumlock.redis.node.Timers;
import java.time.Duration;

/**
 * What a granted {@link RedisLease} asks of the engine: its release, its fencing token,
 * its extension, and the clock its validity is read against. One instance per engine,
 * shared by every lease.
 */
final class Leases {

	private final Releaser releaser;

	private final Fencing fencing;

	private final Timers timers;

	private final Extender extender;

	Leases(Releaser releaser, Fencing fencing, Timers timers, Extender extender) {
		this.releaser = releaser;
		this.fencing = fencing;
		this.timers = timers;
		this.extender = extender;
	}

	long nanoTime() {
		return this.timers.nanoTime();
	}

	void release(RedisLease lease) {
		this.releaser.release(lease);
	}

	CompletableFuture<Void> releaseForCaller(RedisLease lease) {
		return this.releaser.releaseForCaller(lease);
	}

	long fencingToken(RedisLease lease) {
		LockModes.checkFencing(lease);
		return this.fencing.tokenForCaller(lease);
	}

	CompletableFuture<Long> fencingTokenAsync(RedisLease lease) {
		if (LockModes.fencingRefusal(lease) != null) {
			return CompletableFuture.failedFuture(new UnsupportedOperationException(LockModes.fencingRefusal(lease)));
		}
		return this.fencing.tokenAsync(lease);
	}

	boolean extend(RedisLease lease, Duration length, Duration holdAtLeast) {
		return this.extender.extendForCaller(lease, length, holdAtLeast);
	}

	CompletableFuture<Boolean> extendAsync(RedisLease lease, Duration length) {
		return this.extender.extendAsync(lease, length);
	}

}
