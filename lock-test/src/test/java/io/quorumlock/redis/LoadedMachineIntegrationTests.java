package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lock contract on a loaded machine: busy threads, four per core, saturate the test
 * JVM while the engine runs with its defaults (only the restart guard is off: fresh
 * fixture masters), on one and on three masters, and on three while one master at a time
 * is stopped for 250 ms. On free keys, blocking {@code acquire}, {@code acquireAsync},
 * the {@code Lock} view's {@code tryLock()} and {@code tryAcquire} are all granted: no
 * {@link LockNotAcquiredException}, no {@link QuorumUnavailableException} while a quorum
 * of masters is healthy, and no lease renewed meanwhile is reported lost. Bounded in
 * calls and time; no timing is asserted.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LoadedMachineIntegrationTests {

	/** Rounds of the four kinds of call, per worker. */
	private static final int ROUNDS = 10;

	private static final int WORKERS = 4;

	/** Renewed every lease/3 while the calls run; fits any default node timeout. */
	private static final Duration HELD_LEASE = Duration.ofSeconds(9);

	private static final int HELD = 3;

	@Timeout(value = 180, unit = TimeUnit.SECONDS)
	abstract static class Contract {

		final SlownessIsNotAbsenceIntegrationTests.Heard heard = new SlownessIsNotAbsenceIntegrationTests.Heard();

		final Stalls stalls = new Stalls();

		final List<Throwable> failures = new CopyOnWriteArrayList<>();

		QuorumLockEngine locks;

		abstract RedisServers redis();

		@BeforeEach
		void start() {
			this.locks = SlownessIsNotAbsenceIntegrationTests.defaults(redis(), this.heard);
		}

		@AfterEach
		void stop() {
			this.stalls.close();
			this.locks.close();
		}

		@Test
		void theContractHoldsWithTheDefaultsWhileBusyThreadsSaturateTheJvm() throws Exception {
			runUnderLoad();
		}

		/**
		 * Holds renewing leases while workers make every kind of call on free keys, all
		 * under busy threads; then checks what they came to.
		 */
		void runUnderLoad() throws Exception {
			List<Lease> held = new ArrayList<>();
			for (int i = 0; i < HELD; i++) {
				held.add(this.locks.acquire(free().lease(HELD_LEASE).renew(true)));
			}
			try (BusyThreads busy = BusyThreads.fourPerCore()) {
				ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
				try {
					List<Future<?>> done = new ArrayList<>();
					for (int w = 0; w < WORKERS; w++) {
						done.add(workers.submit(this::calls));
					}
					for (Future<?> worker : done) {
						worker.get(150, TimeUnit.SECONDS);
					}
				}
				finally {
					workers.shutdownNow();
				}
				// the held leases were renewed at least twice each under the load
				int renewed = this.heard.renewed.get();
				await().atMost(Duration.ofSeconds(60))
					.until(() -> this.heard.renewed.get() >= renewed + 2 * HELD || !this.heard.lost.isEmpty());
			}
			assertThat(this.failures).as("calls on free keys, defaults, busy JVM: none refused")
				.noneMatch(LockNotAcquiredException.class::isInstance)
				.noneMatch(QuorumUnavailableException.class::isInstance)
				.isEmpty();
			assertThat(this.heard.lost).as("leases renewed on healthy masters reported lost").isEmpty();
			assertThat(held).allMatch(Lease::isValid);
			held.forEach(Lease::release);
			assertThat(this.heard.lost).isEmpty();
		}

		private static LockRequest free() {
			return SlownessIsNotAbsenceIntegrationTests.free();
		}

		private void calls() {
			for (int i = 0; i < ROUNDS; i++) {
				call(() -> this.locks.acquire(free()).release());
				call(() -> this.locks.acquireAsync(free()).get(60, TimeUnit.SECONDS).release());
				call(() -> {
					Lock lock = this.locks.asLock("free-" + UUID.randomUUID());
					if (!lock.tryLock()) {
						throw new LockNotAcquiredException("Lock view: tryLock() of a free key returned false");
					}
					lock.unlock();
				});
				call(() -> {
					Optional<Lease> lease = this.locks.tryAcquire(free());
					if (lease.isEmpty()) {
						throw new LockNotAcquiredException("tryAcquire of a free key returned empty");
					}
					lease.get().release();
				});
			}
		}

		private void call(Call call) {
			try {
				call.run();
			}
			catch (Exception ex) {
				this.failures.add(SlownessIsNotAbsenceIntegrationTests.cause(ex));
			}
		}

		@FunctionalInterface
		private interface Call {

			void run() throws Exception;

		}

	}

	@Nested
	@Timeout(value = 180, unit = TimeUnit.SECONDS)
	class OneMaster extends Contract {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(1);

		@Override
		RedisServers redis() {
			return redis;
		}

	}

	@Nested
	@Timeout(value = 180, unit = TimeUnit.SECONDS)
	class ThreeMasters extends Contract {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(3);

		@Override
		RedisServers redis() {
			return redis;
		}

		@Test
		void theContractHoldsWhileOneMasterAtATimeStallsFor250Ms() throws Exception {
			this.stalls.rotate(Duration.ofMillis(250), Duration.ofMillis(700), redis.nodes());
			runUnderLoad();
		}

	}

}
