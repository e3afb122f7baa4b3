package io.quorumlock.bench.candidates;

import java.net.URI;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import java.time.Duration;

/**
 * Spring Integration's {@link RedisLockRegistry} (spin or pub/sub) over a
 * {@link LettuceConnectionFactory} with its defaults (one shared native connection).
 */
final class SpringIntegrationClient implements LockClient {

	private final LettuceConnectionFactory factory;

	private final RedisLockRegistry registry;

	SpringIntegrationClient(String node, RedisLockType type) {
		URI uri = URI.create(node);
		this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
		this.factory.afterPropertiesSet();
		this.factory.start();
		this.registry = new RedisLockRegistry(this.factory, "si-bench", LEASE.toMillis());
		this.registry.setRedisLockType(type);
	}

	@Override
	public boolean withLock(String key, boolean wait, Runnable body) throws InterruptedException {
		return withLock(key, wait ? WAIT : null, body);
	}

	@Override
	public boolean withLock(String key, Duration wait, Runnable body) throws InterruptedException {
		Lock lock = this.registry.obtain(key);
		if (!((wait != null) ? lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) : lock.tryLock())) {
			return false;
		}
		try {
			body.run();
		}
		finally {
			lock.unlock();
		}
		return true;
	}

	@Override
	public void close() {
		this.registry.destroy();
		this.factory.destroy();
	}

}
