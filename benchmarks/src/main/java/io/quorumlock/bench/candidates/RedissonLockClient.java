package io.quorumlock.bench.candidates;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import java.time.Duration;

/**
 * Redisson with its defaults: {@code RLock} with a fixed lease or with the watchdog, and
 * {@code RedissonRedLock} over one {@link RedissonClient} per master (watchdog mode: a
 * fixed lease makes the multi-lock send one more {@code PEXPIRE} round).
 */
final class RedissonLockClient implements LockClient {

	enum Mode {

		LEASE, WATCHDOG, REDLOCK

	}

	private final List<RedissonClient> clients = new ArrayList<>();

	private final Mode mode;

	RedissonLockClient(List<String> nodes, Mode mode) {
		this.mode = mode;
		try {
			for (String node : nodes) {
				Config config = new Config();
				config.useSingleServer().setAddress(node);
				this.clients.add(Redisson.create(config));
			}
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
	}

	@Override
	@SuppressWarnings("deprecation") // RedissonRedLock: deprecated, still the Redlock of
										// 3.x
	public boolean withLock(String key, boolean wait, Runnable body) throws InterruptedException {
		return withLock(key, wait ? WAIT : Duration.ZERO, body);
	}

	@Override
	@SuppressWarnings("deprecation") // as above
	public boolean withLock(String key, Duration wait, Runnable body) throws InterruptedException {
		RLock lock;
		if (this.mode == Mode.REDLOCK) {
			RLock[] locks = new RLock[this.clients.size()];
			for (int i = 0; i < locks.length; i++) {
				locks[i] = this.clients.get(i).getLock(key);
			}
			lock = new RedissonRedLock(locks);
		}
		else {
			lock = this.clients.get(0).getLock(key);
		}
		long waitMillis = wait.toMillis();
		long leaseMillis = (this.mode == Mode.LEASE) ? LEASE.toMillis() : -1;
		if (!lock.tryLock(waitMillis, leaseMillis, TimeUnit.MILLISECONDS)) {
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
		this.clients.forEach((client) -> client.shutdown(0, 2, TimeUnit.SECONDS));
	}

}
