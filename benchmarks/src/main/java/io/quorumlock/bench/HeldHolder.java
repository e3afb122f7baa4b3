package io.quorumlock.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * Holds many leases for {@link HeldLeases}: quorumlock's engine (renewal on, a
 * {@link LockListener} counting renewals and losses) or Redisson's {@code RLock} with its
 * watchdog (lock watchdog timeout = the lease). A second client of the same kind probes
 * mutual exclusion.
 */
abstract class HeldHolder implements AutoCloseable {

	final Duration lease;

	final String prefix;

	private Object[] handles = new Object[0];

	HeldHolder(Duration lease, String prefix) {
		this.lease = lease;
		this.prefix = prefix;
	}

	static HeldHolder open(String candidate, List<String> nodes, Duration lease, String prefix) {
		return switch (candidate) {
			case "quorumlock" -> new QuorumLock(nodes, lease, prefix);
			case "redisson-watchdog" -> new RedissonWatchdog(nodes, lease, prefix);
			default -> throw new IllegalArgumentException(
					"held leases: no candidate '" + candidate + "' (quorumlock, redisson-watchdog)");
		};
	}

	/**
	 * Take {@code count} leases named {@code prefix + name(i)}; they replace the last
	 * set.
	 */
	int acquireAll(int count, IntFunction<String> name) throws InterruptedException {
		Object[] taken = new Object[count];
		this.handles = taken;
		// each slot is written by its own completion, read after acquireAll's semaphore
		return HeldLeases.acquireAll(count,
				(i) -> acquire(this.prefix + name.apply(i)).thenAccept((h) -> taken[i] = h));
	}

	/**
	 * Take one lease named {@code prefix + name} outside the sets, and wait for it (tried
	 * again like the sets: a cold JVM may miss the node timeout).
	 */
	Object hold(String name) throws InterruptedException {
		Object[] taken = new Object[1];
		HeldLeases.acquireAll(1, (i) -> acquire(this.prefix + name).thenAccept((h) -> taken[0] = h));
		return taken[0];
	}

	/** Release the first {@code count} leases of the last set. */
	void release(int count) throws InterruptedException {
		Object[] taken = this.handles;
		HeldLeases.acquireAll(count, (i) -> release(taken[i]));
	}

	long leastRemainingMs() {
		long least = -1;
		for (Object handle : this.handles) {
			long ms = remainingMs(handle);
			if (ms >= 0 && (least < 0 || ms < least)) {
				least = ms;
			}
		}
		return least;
	}

	abstract CompletionStage<Object> acquire(String key);

	abstract CompletionStage<?> release(Object handle);

	/** Remaining validity in ms, -1 if this candidate does not say. */
	abstract long remainingMs(Object handle);

	/** Renewals counted by the client, -1 if it does not say. */
	abstract long renewed();

	/**
	 * Node errors the client reported so far (a renewal round that missed a node's answer
	 * in time is one), by kind; empty if it does not say.
	 */
	Map<String, Long> nodeErrors() {
		return Map.of();
	}

	/** Leases lost, -1 if the client does not say. */
	abstract long lost();

	/** The Redis key of a lock named {@code prefix + name}. */
	abstract String redisKey(String name);

	/**
	 * Whether another client was granted the held key {@code prefix + name} (it must not
	 * be).
	 */
	abstract boolean probe(String name) throws InterruptedException;

	static final class QuorumLock extends HeldHolder implements LockListener {

		private final AtomicLong renewed = new AtomicLong();

		private final AtomicLong lost = new AtomicLong();

		private final Map<String, LongAdder> nodeErrors = new ConcurrentHashMap<>();

		private final QuorumLockEngine engine;

		private final QuorumLockEngine other;

		QuorumLock(List<String> nodes, Duration lease, String prefix) {
			super(lease, prefix);
			this.engine = QuorumLockEngine.builder().nodes(nodes).rejoinDelay(Duration.ZERO).listener(this).build();
			this.other = QuorumLockEngine.builder().nodes(nodes).rejoinDelay(Duration.ZERO).build();
		}

		@Override
		public void onRenewed(LockRequest request, Lease lease) {
			this.renewed.incrementAndGet();
		}

		@Override
		public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
			this.lost.incrementAndGet();
		}

		@Override
		public void onNodeError(String node, Throwable error) {
			this.nodeErrors.computeIfAbsent(error.getClass().getSimpleName(), (kind) -> new LongAdder()).increment();
		}

		@Override
		Map<String, Long> nodeErrors() {
			Map<String, Long> counts = new TreeMap<>();
			this.nodeErrors.forEach((kind, count) -> counts.put(kind, count.sum()));
			return counts;
		}

		@Override
		CompletionStage<Object> acquire(String key) {
			return this.engine.acquireAsync(LockRequest.of(key).lease(this.lease).renew(true)).thenApply((l) -> l);
		}

		@Override
		CompletionStage<?> release(Object handle) {
			return ((Lease) handle).releaseAsync();
		}

		@Override
		long remainingMs(Object handle) {
			return (handle != null) ? ((Lease) handle).remaining().toMillis() : -1;
		}

		@Override
		long renewed() {
			return this.renewed.get();
		}

		@Override
		long lost() {
			return this.lost.get();
		}

		@Override
		String redisKey(String name) {
			return QuorumLockEngine.Builder.DEFAULT_KEY_PREFIX + "{" + this.prefix + name + "}";
		}

		/**
		 * Tried again while the quorum is unavailable (no answer within the node timeout
		 * on a loaded machine): that says nothing about exclusion either way.
		 */
		@Override
		boolean probe(String name) {
			for (int attempt = 1;; attempt++) {
				try {
					Optional<Lease> granted = this.other
						.tryAcquire(LockRequest.of(this.prefix + name).lease(this.lease));
					granted.ifPresent(Lease::release);
					return granted.isPresent();
				}
				catch (QuorumUnavailableException ex) {
					if (attempt == 10) {
						throw ex;
					}
				}
			}
		}

		@Override
		public void close() {
			this.other.close();
			this.engine.close();
		}

	}

	static final class RedissonWatchdog extends HeldHolder {

		/** The owner id of every lock: one logical holder, many keys. */
		private static final long OWNER = 1L;

		private final RedissonClient client;

		private final RedissonClient other;

		RedissonWatchdog(List<String> nodes, Duration lease, String prefix) {
			super(lease, prefix);
			if (nodes.size() != 1) {
				throw new IllegalArgumentException("redisson-watchdog holds RLocks on one master, not " + nodes.size());
			}
			this.client = client(nodes.get(0), lease);
			this.other = client(nodes.get(0), lease);
		}

		private static RedissonClient client(String node, Duration lease) {
			Config config = new Config();
			config.setLockWatchdogTimeout(lease.toMillis());
			config.useSingleServer().setAddress(node);
			return Redisson.create(config);
		}

		@Override
		CompletionStage<Object> acquire(String key) {
			RLock lock = this.client.getLock(key);
			return lock.lockAsync(OWNER).thenApply((ok) -> lock);
		}

		@Override
		CompletionStage<?> release(Object handle) {
			return ((RLock) handle).unlockAsync(OWNER);
		}

		@Override
		long remainingMs(Object handle) {
			return -1;
		}

		@Override
		long renewed() {
			return -1;
		}

		@Override
		long lost() {
			return -1;
		}

		@Override
		String redisKey(String name) {
			return this.prefix + name;
		}

		@Override
		boolean probe(String name) throws InterruptedException {
			RLock lock = this.other.getLock(this.prefix + name);
			boolean granted = lock.tryLock(0, this.lease.toMillis(), TimeUnit.MILLISECONDS);
			if (granted) {
				lock.unlock();
			}
			return granted;
		}

		@Override
		public void close() {
			this.other.shutdown(0, 2, TimeUnit.SECONDS);
			this.client.shutdown(0, 2, TimeUnit.SECONDS);
		}

	}

}
