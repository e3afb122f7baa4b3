package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Locking and releasing many distinct keys leaves no per-key state behind: no local gate,
 * no registered wake-up, no pending timer, no pub/sub subscription on the server, no lock
 * key, and no heap beyond 4 MB. The map sizes are the robust check; the heap figure
 * catches state kept anywhere else: a leak of 100 bytes per key is 5 MB here, while the
 * heap measured before and after moves by a few hundred KB.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MemoryIntegrationTests {

	private static final long HEAP_SLACK_BYTES = 4L * 1024 * 1024;

	private static final int IN_FLIGHT = 128;

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	private QuorumLockEngine locks;

	private QuorumLockEngine otherProcess;

	@BeforeEach
	void startEngines() {
		this.locks = engine();
		this.otherProcess = engine();
	}

	@AfterEach
	void closeEngines() {
		this.locks.close();
		this.otherProcess.close();
	}

	/** A generous node timeout: this test is about memory, on a busy machine. */
	private static QuorumLockEngine engine() {
		return QuorumLockEngine.builder().nodes(redis.uris()).nodeTimeout(Duration.ofSeconds(2)).build();
	}

	@Test
	void fiftyThousandDistinctKeysLeaveNoStateBehind() {
		lockAndReleaseDistinctKeys(50_000);
	}

	@Test
	@Tag("soak")
	@Timeout(value = 20, unit = TimeUnit.MINUTES)
	void millionDistinctKeysLeaveNoStateBehind() {
		lockAndReleaseDistinctKeys(1_000_000);
	}

	@Test
	void unsubscribeWhileThePubSubConnectionIsStillOpeningLeavesNoSubscription() {
		// The first wait of an engine opens its pub/sub connection; a grant can come
		// before that connection is up, and the unsubscribe must then not be lost.
		try (QuorumLockEngine fresh = engine()) {
			String channel = LockKeys.channel("lock:{first-wait}");
			CompletableFuture<Void> subscribed = fresh.signals().subscribe(channel);
			fresh.signals().unsubscribe(channel);
			subscribed.join();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat((List<?>) redis.node(0).call("PUBSUB", "CHANNELS"))
					.as("channels subscribed on the server")
					.isEmpty());
		}
	}

	private void lockAndReleaseDistinctKeys(int keys) {
		// warm up classes, connections and buffers before the baseline
		pipelined("warmup", 2_000);
		awaitNoPerKeyState();
		long before = usedHeapAfterGc();

		pipelined("distinct", keys);
		contended("contended", 500);
		reentrantWithFencing("reentrant", 1_000);

		awaitNoPerKeyState();
		long after = usedHeapAfterGc();
		System.out.printf("memory: %,d distinct keys, used heap after GC %,d bytes before, %,d after (%+,d)%n", keys,
				before, after, after - before);
		assertThat(after - before)
			.as("heap retained after %,d distinct keys: %,d bytes before, %,d after", keys, before, after)
			.isLessThan(HEAP_SLACK_BYTES);
	}

	/** Lock and release {@code keys} distinct keys, {@value #IN_FLIGHT} at a time. */
	private void pipelined(String name, int keys) {
		Semaphore slots = new Semaphore(IN_FLIGHT);
		AtomicInteger failures = new AtomicInteger();
		AtomicReference<Throwable> first = new AtomicReference<>();
		for (int i = 0; i < keys; i++) {
			slots.acquireUninterruptibly();
			this.locks.acquireAsync(LockRequest.of("k" + i).name(name))
				.thenCompose(Lease::releaseAsync)
				.whenComplete((ok, error) -> {
					if (error != null) {
						failures.incrementAndGet();
						first.compareAndSet(null, error);
					}
					slots.release();
				});
		}
		slots.acquireUninterruptibly(IN_FLIGHT);
		assertThat(failures).as("failed lock/release of %s keys, first: %s", name, first.get()).hasValue(0);
	}

	/**
	 * Another engine holds each key while this one waits for it, so that every wait
	 * subscribes to the release channel; then the holder lets go and the waiters take
	 * over.
	 */
	private void contended(String name, int keys) {
		List<Lease> held = new ArrayList<>(keys);
		for (int i = 0; i < keys; i++) {
			held.add(this.otherProcess.acquire(LockRequest.of("k" + i).name(name)));
		}
		List<CompletableFuture<Lease>> waiting = new ArrayList<>(keys);
		for (int i = 0; i < keys; i++) {
			waiting.add(this.locks.acquireAsync(LockRequest.of("k" + i).name(name).waitAtMost(Duration.ofSeconds(60))));
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> this.locks.signals().waiting() == keys);
		held.forEach(Lease::release);
		for (CompletableFuture<Lease> lease : waiting) {
			lease.join().release();
		}
	}

	/** The blocking path, a re-entry and a fencing token per key. */
	private void reentrantWithFencing(String name, int keys) {
		for (int i = 0; i < keys; i++) {
			LockRequest request = LockRequest.of("k" + i).name(name);
			this.locks.execute(request, () -> {
				try (Lease inner = this.locks.acquire(request)) {
					assertThat(inner.fencingToken()).isPositive();
				}
				return null;
			});
		}
	}

	private void awaitNoPerKeyState() {
		ScheduledThreadPoolExecutor scheduler = (ScheduledThreadPoolExecutor) this.locks.scheduler();
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(this.locks.gates().size()).as("local gates").isZero();
			assertThat(this.locks.signals().waiting()).as("registered wake-ups").isZero();
			assertThat(this.locks.signals().subscribed()).as("subscriptions").isZero();
			assertThat(this.locks.leases()).as("held leases").isEmpty();
			// only the engine's periodic node check stays scheduled
			assertThat(scheduler.getQueue()).as("scheduled tasks").hasSizeLessThanOrEqualTo(1);
			assertThat((List<?>) redis.node(0).call("PUBSUB", "CHANNELS")).as("channels subscribed on the server")
				.isEmpty();
			assertThat((List<?>) redis.node(0).call("KEYS", "lock:*}")).as("lock keys on the server").isEmpty();
		});
	}

	private static long usedHeapAfterGc() {
		Runtime runtime = Runtime.getRuntime();
		long used = Long.MAX_VALUE;
		for (int i = 0; i < 10; i++) {
			System.gc();
			long now = runtime.totalMemory() - runtime.freeMemory();
			if (Math.abs(used - now) < 256 * 1024) {
				return Math.min(used, now);
			}
			used = now;
		}
		return used;
	}

}
