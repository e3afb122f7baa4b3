package io.quorumlock.bench.candidates;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's shared primitives with its defaults, on one node: the read lock of an
 * {@code RReadWriteLock} with a fixed lease, or an {@code RPermitExpirableSemaphore} of k
 * permits (set once per key with {@code trySetPermits}), each permit taken with a lease
 * and released by its id, as quorumlock's permits are.
 */
final class RedissonSharedClient implements LockClient {

	private final RedissonClient client;

	/** 0: the read lock; else the semaphore's permits. */
	private final int permits;

	/** Keys whose semaphore has its permits set. */
	private final Map<String, Boolean> sized = new ConcurrentHashMap<>();

	RedissonSharedClient(String node, int permits) {
		Config config = new Config();
		config.useSingleServer().setAddress(node);
		this.client = Redisson.create(config);
		this.permits = permits;
	}

	@Override
	public boolean withLock(String key, boolean wait, Runnable body) throws InterruptedException {
		return withLock(key, wait ? WAIT : Duration.ZERO, body);
	}

	@Override
	public boolean withLock(String key, Duration wait, Runnable body) throws InterruptedException {
		if (this.permits == 0) {
			RLock read = this.client.getReadWriteLock(key).readLock();
			if (!read.tryLock(wait.toMillis(), LEASE.toMillis(), TimeUnit.MILLISECONDS)) {
				return false;
			}
			try {
				body.run();
			}
			finally {
				read.unlock();
			}
			return true;
		}
		RPermitExpirableSemaphore semaphore = this.client.getPermitExpirableSemaphore(key);
		this.sized.computeIfAbsent(key, (k) -> semaphore.trySetPermits(this.permits));
		String permit = semaphore.tryAcquire(wait.toMillis(), LEASE.toMillis(), TimeUnit.MILLISECONDS);
		if (permit == null) {
			return false;
		}
		try {
			body.run();
		}
		finally {
			semaphore.release(permit);
		}
		return true;
	}

	@Override
	public void close() {
		this.client.shutdown(0, 2, TimeUnit.SECONDS);
	}

}
