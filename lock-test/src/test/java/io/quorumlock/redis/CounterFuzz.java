package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fuzz test of the contract: eight threads, half on each of two engines (two
 * processes), increment a plain counter under the lock; the total must be exact and no
 * two holders may be inside at once. The threads come from the caller's executor, so the
 * same test runs on platform and on virtual threads.
 */
final class CounterFuzz {

	static final int THREADS = 8;

	static final int PER_THREAD = 25;

	private CounterFuzz() {
	}

	static void run(ExecutorService pool, DistributedLockRegistry one, DistributedLockRegistry other,
			Supplier<LockRequest> request) throws Exception {
		int[] counter = { 0 };
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		List<Future<?>> done = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			DistributedLockRegistry engine = (t % 2 == 0) ? one : other;
			done.add(pool.submit(() -> {
				for (int i = 0; i < PER_THREAD; i++) {
					try (Lease lease = engine.acquire(request.get().waitAtMost(Duration.ofSeconds(30)))) {
						if (inside.incrementAndGet() != 1) {
							overlaps.incrementAndGet();
						}
						// a plain, unsynchronized read-modify-write
						counter[0] = counter[0] + 1;
						inside.decrementAndGet();
					}
				}
				return null;
			}));
		}
		for (Future<?> f : done) {
			f.get(50, TimeUnit.SECONDS);
		}
		assertThat(overlaps).hasValue(0);
		assertThat(counter[0]).isEqualTo(THREADS * PER_THREAD);
	}

}
