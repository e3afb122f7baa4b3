package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockException;
import io.quorumlock.LockMode;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Mutual exclusion of shared/exclusive locks and of permits under faults, on 3 masters
 * with the restart guard on: a minority killed and restarted empty, then paused and
 * resumed, while threads of two engines (two processes) hammer one key. The checkers
 * count, inside the holds, who holds now: a writer never overlaps a reader or another
 * writer; never more than k permit holders. Each reports 0 violations, and shows the
 * workload ran (readers did overlap, every kind of hold happened).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SharedPermitFaultIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(1);

	/** Longer than the lease: a node restarted empty votes again only after it. */
	private static final Duration REJOIN = Duration.ofMillis(1500);

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	@Test
	void aWriterNeverOverlapsAReaderOrAnotherWriterUnderFaults() throws Exception {
		AtomicInteger readers = new AtomicInteger();
		AtomicInteger writers = new AtomicInteger();
		AtomicInteger maxReaders = new AtomicInteger();
		AtomicInteger violations = new AtomicInteger();
		AtomicInteger reads = new AtomicInteger();
		AtomicInteger writes = new AtomicInteger();
		run("rw", (i) -> (i % 3 == 0) ? () -> {
			int w = writers.incrementAndGet();
			if (w != 1 || readers.get() != 0) {
				violations.incrementAndGet();
			}
			pause();
			writers.decrementAndGet();
			writes.incrementAndGet();
		} : () -> {
			int r = readers.incrementAndGet();
			maxReaders.accumulateAndGet(r, Math::max);
			if (writers.get() != 0) {
				violations.incrementAndGet();
			}
			pause();
			readers.decrementAndGet();
			reads.incrementAndGet();
		}, (i) -> (i % 3 == 0) ? LockMode.EXCLUSIVE : LockMode.SHARED, 1);
		assertThat(violations).as("a writer overlapped a reader or another writer").hasValue(0);
		assertThat(writes.get()).isPositive();
		assertThat(reads.get()).isPositive();
		assertThat(maxReaders.get()).as("readers held the key together").isGreaterThan(1);
	}

	@Test
	void neverMoreThanKPermitHoldersUnderFaults() throws Exception {
		int k = 2;
		AtomicInteger holders = new AtomicInteger();
		AtomicInteger max = new AtomicInteger();
		AtomicInteger violations = new AtomicInteger();
		AtomicInteger holds = new AtomicInteger();
		run("permits", (i) -> () -> {
			int now = holders.incrementAndGet();
			max.accumulateAndGet(now, Math::max);
			if (now > k) {
				violations.incrementAndGet();
			}
			pause();
			holders.decrementAndGet();
			holds.incrementAndGet();
		}, (i) -> LockMode.EXCLUSIVE, k);
		assertThat(violations).as("more than %d permit holders", k).hasValue(0);
		assertThat(holds.get()).isPositive();
		assertThat(max.get()).as("permits were held together").isEqualTo(k);
	}

	private static void pause() {
		try {
			// the work inside a hold
			Thread.sleep(ThreadLocalRandom.current().nextInt(1, 4));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Six workers over two engines lock one key while a minority node is killed,
	 * restarted empty, paused and resumed.
	 */
	private void run(String key, Function<Integer, Runnable> work, Function<Integer, LockMode> mode, int permits)
			throws Exception {
		List<QuorumLockEngine> engines = List.of(engine(), engine());
		await().atMost(Duration.ofSeconds(30))
			.until(() -> engines.stream()
				.allMatch((e) -> e.nodes().stream().filter((n) -> n.countsTowardQuorum()).count() >= 2));
		AtomicBoolean running = new AtomicBoolean(true);
		ExecutorService pool = Executors.newFixedThreadPool(6);
		List<Future<?>> workers = new ArrayList<>();
		try {
			for (int i = 0; i < 6; i++) {
				int worker = i;
				QuorumLockEngine engine = engines.get(i % 2);
				LockRequest request = LockRequest.of(key + "-" + permits)
					.lease(LEASE)
					.waitAtMost(Duration.ofMillis(500))
					.mode(mode.apply(worker))
					.permits(permits);
				Runnable body = work.apply(worker);
				workers.add(pool.submit(() -> {
					while (running.get()) {
						try {
							Optional<Lease> lease = engine.tryAcquire(request);
							if (lease.isPresent()) {
								try {
									if (lease.get().isValid()) {
										body.run();
									}
								}
								finally {
									lease.get().release();
								}
							}
						}
						catch (LockException ex) {
							// quorum unavailable or a lease lost while a node is down:
							// not a violation
						}
					}
				}));
			}
			redis.node(2).kill();
			waitMillis(1500);
			redis.node(2).restart(); // empty: no persistence
			waitMillis(2500);
			redis.node(1).pause();
			waitMillis(1500);
			redis.node(1).resume();
			waitMillis(1500);
		}
		finally {
			running.set(false);
			pool.shutdown();
			assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
			engines.forEach(QuorumLockEngine::close);
			if (redis.node(1).isPaused()) {
				redis.node(1).resume();
			}
		}
		for (Future<?> worker : workers) {
			worker.get();
		}
	}

	/** The workload runs meanwhile: this is the length of a fault, not a wait for it. */
	private static void waitMillis(long millis) throws InterruptedException {
		Thread.sleep(millis);
	}

	private static QuorumLockEngine engine() {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofMillis(100))
			.defaults(io.quorumlock.LockOptions.none().lease(LEASE))
			.rejoinDelay(REJOIN)
			.build();
	}

}
