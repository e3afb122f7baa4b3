package io.quorumlock.bench.candidates;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;

/**
 * A registry that grants every request at once without any I/O, so that the aspect's own
 * cost (proxy, SpEL key, request building, hand-off) can be measured apart from Redis.
 */
public final class StubRegistry implements DistributedLockRegistry {

	@Override
	public Lease acquire(LockRequest request) {
		return new StubLease(request.keys());
	}

	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		return Optional.of(acquire(request));
	}

	@Override
	public CompletableFuture<Lease> acquireAsync(LockRequest request) {
		return CompletableFuture.completedFuture(acquire(request));
	}

	@Override
	public <T> T execute(LockRequest request, Callable<T> action) {
		try (Lease lease = acquire(request)) {
			return action.call();
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public Lock asLock(String key) {
		throw new UnsupportedOperationException("not needed by the benchmark");
	}

	private static final class StubLease implements Lease {

		private final List<String> keys;

		private boolean released;

		StubLease(List<String> keys) {
			this.keys = keys;
		}

		@Override
		public List<String> keys() {
			return this.keys;
		}

		@Override
		public long fencingToken() {
			return 1;
		}

		@Override
		public Duration remaining() {
			return this.released ? Duration.ZERO : LockClient.LEASE;
		}

		@Override
		public boolean isValid() {
			return !this.released;
		}

		@Override
		public void release() {
			this.released = true;
		}

	}

}
