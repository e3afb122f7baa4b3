package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A re-entry into a lease in whose scope the calling thread runs (see
 * {@link QuorumLockEngine}'s re-entry rule): it reads through to the lease, and its
 * release only gives back this hold, without touching Redis.
 */
final class ReentrantHold implements Lease {

	private final RedisLease lease;

	private final AtomicBoolean released = new AtomicBoolean();

	ReentrantHold(RedisLease lease) {
		this.lease = lease;
		lease.holds().incrementAndGet();
	}

	/** The lease this holds a re-entry into. */
	RedisLease lease() {
		return this.lease;
	}

	@Override
	public List<String> keys() {
		return this.lease.keys();
	}

	@Override
	public long fencingToken() {
		return this.lease.fencingToken();
	}

	@Override
	public CompletableFuture<Long> fencingTokenAsync() {
		return this.lease.fencingTokenAsync();
	}

	@Override
	public boolean extend(Duration lease) {
		return this.lease.extend(lease);
	}

	@Override
	public boolean extend(Duration lease, Duration holdAtLeast) {
		return this.lease.extend(lease, holdAtLeast);
	}

	@Override
	public CompletableFuture<Boolean> extendAsync(Duration lease) {
		return this.lease.extendAsync(lease);
	}

	@Override
	public Duration remaining() {
		return this.released.get() ? Duration.ZERO : this.lease.remaining();
	}

	@Override
	public boolean isValid() {
		return !this.released.get() && this.lease.isValid();
	}

	@Override
	public CompletionStage<LeaseLostException> whenLost() {
		return this.lease.whenLost();
	}

	@Override
	public void checkValid() {
		if (this.released.get()) {
			throw new LeaseLostException(this.lease.request().describe() + ": this hold was released", false);
		}
		this.lease.checkValid();
	}

	@Override
	public void release() {
		if (this.released.compareAndSet(false, true)) {
			this.lease.holds().decrementAndGet();
		}
	}

	@Override
	public CompletionStage<Void> releaseAsync() {
		release();
		return CompletableFuture.completedFuture(null);
	}

	@Override
	public String toString() {
		return "ReentrantHold[" + this.lease + "]";
	}

}
