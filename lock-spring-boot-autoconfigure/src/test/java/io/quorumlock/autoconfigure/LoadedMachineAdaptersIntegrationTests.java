package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.LockRegistry;

import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockListener;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The adapters users call on a loaded machine: the {@code @DistributedLock} aspect, the
 * ShedLock {@link LockProvider} and the Spring Integration {@link LockRegistry},
 * auto-configured with the defaults (only the restart guard is off: fresh fixture
 * masters), while busy threads, four per core, saturate the test JVM; on one and on three
 * masters, and on three while one master at a time is stopped for 250 ms. On free keys
 * every call is granted: no {@link LockNotAcquiredException}, no
 * {@link QuorumUnavailableException}, no empty ShedLock lock, no {@code tryLock()} false,
 * and no lease renewed meanwhile is reported lost. Bounded in calls and time; no timing
 * is asserted. (The engine's own loaded-machine suite is lock-test's
 * {@code LoadedMachineIntegrationTests}.)
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LoadedMachineAdaptersIntegrationTests {

	private static final int ROUNDS = 10;

	private static final int WORKERS = 4;

	/** Renewed every lease/3 while the calls run; fits any default node timeout. */
	private static final Duration HELD_LEASE = Duration.ofSeconds(9);

	private static final int HELD = 3;

	static ApplicationContextRunner runner(RedisServers redis) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class,
					QuorumLockShedLockAutoConfiguration.class, QuorumLockIntegrationAutoConfiguration.class))
			.withPropertyValues("quorumlock.nodes=" + String.join(",", redis.uris()), "quorumlock.rejoin-delay=0s")
			.withUserConfiguration(AdaptersConfiguration.class);
	}

	/** Runs the adapters' calls under busy threads, stalling {@code stalled} in turn. */
	static void contractUnderLoad(RedisServers redis, List<RedisServer> stalled) {
		runner(redis).run((context) -> {
			Heard heard = context.getBean(Heard.class);
			RegistryStatus status = context.getBean(RegistryStatus.class);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> status.nodes().stream().allMatch(RegistryStatus.Node::voting));
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			Work work = context.getBean(Work.class);
			LockProvider shedLock = context.getBean(LockProvider.class);
			LockRegistry integration = context.getBean(LockRegistry.class);
			List<Throwable> failures = new CopyOnWriteArrayList<>();
			List<Lease> held = new ArrayList<>();
			ScheduledExecutorService stalls = Executors.newSingleThreadScheduledExecutor();
			try (BusyThreads busy = BusyThreads.fourPerCore()) {
				if (!stalled.isEmpty()) {
					AtomicInteger next = new AtomicInteger();
					stalls.scheduleWithFixedDelay(() -> {
						RedisServer master = stalled.get(next.getAndIncrement() % stalled.size());
						master.pause();
						stalls.schedule(master::resume, 250, TimeUnit.MILLISECONDS);
					}, 0, 700, TimeUnit.MILLISECONDS);
				}
				for (int i = 0; i < HELD; i++) {
					held.add(registry.acquire(LockRequest.of(free()).lease(HELD_LEASE).renew(true)));
				}
				ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
				try {
					List<Future<?>> done = new ArrayList<>();
					for (int w = 0; w < WORKERS; w++) {
						done.add(workers.submit(() -> calls(work, shedLock, integration, failures)));
					}
					for (Future<?> worker : done) {
						worker.get(150, TimeUnit.SECONDS);
					}
				}
				finally {
					workers.shutdownNow();
				}
				int renewed = heard.renewed.get();
				await().atMost(Duration.ofSeconds(60))
					.until(() -> heard.renewed.get() >= renewed + 2 * HELD || !heard.lost.isEmpty());
			}
			finally {
				stalls.shutdownNow();
				stalls.awaitTermination(10, TimeUnit.SECONDS);
				redis.nodes().forEach(RedisServer::resume);
			}
			assertThat(failures).as("adapter calls on free keys, defaults, busy JVM: none refused")
				.noneMatch(LockNotAcquiredException.class::isInstance)
				.noneMatch(QuorumUnavailableException.class::isInstance)
				.isEmpty();
			assertThat(heard.lost).as("leases renewed on healthy masters reported lost").isEmpty();
			assertThat(held).allMatch(Lease::isValid);
			held.forEach(Lease::release);
		});
	}

	private static String free() {
		return "free-" + UUID.randomUUID();
	}

	private static void calls(Work work, LockProvider shedLock, LockRegistry integration, List<Throwable> failures) {
		for (int i = 0; i < ROUNDS; i++) {
			call(failures, () -> work.run(free()));
			call(failures, () -> {
				Optional<SimpleLock> lock = shedLock
					.lock(new LockConfiguration(Instant.now(), free(), Duration.ofSeconds(30), Duration.ZERO));
				if (lock.isEmpty()) {
					throw new LockNotAcquiredException("ShedLock: a free job's lock was empty");
				}
				lock.get().unlock();
			});
			call(failures, () -> {
				Lock lock = integration.obtain(free());
				if (!lock.tryLock()) {
					throw new LockNotAcquiredException("Spring Integration: tryLock() of a free key returned false");
				}
				lock.unlock();
			});
		}
	}

	private static void call(List<Throwable> failures, Runnable call) {
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			Throwable cause = ex;
			while ((cause instanceof CompletionException || cause instanceof ExecutionException)
					&& cause.getCause() != null) {
				cause = cause.getCause();
			}
			failures.add(cause);
		}
	}

	@Nested
	@Timeout(value = 180, unit = TimeUnit.SECONDS)
	class OneMaster {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(1);

		@Test
		void adaptersAreGrantedWithTheDefaultsWhileBusyThreadsSaturateTheJvm() {
			contractUnderLoad(redis, List.of());
		}

	}

	@Nested
	@Timeout(value = 180, unit = TimeUnit.SECONDS)
	class ThreeMasters {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(3);

		@Test
		void adaptersAreGrantedWithTheDefaultsWhileBusyThreadsSaturateTheJvm() {
			contractUnderLoad(redis, List.of());
		}

		@Test
		void adaptersAreGrantedWhileOneMasterAtATimeStallsFor250Ms() {
			contractUnderLoad(redis, redis.nodes());
		}

	}

	/** What the engine's listeners heard. */
	static class Heard implements LockListener {

		final List<LeaseLostException> lost = new CopyOnWriteArrayList<>();

		final AtomicInteger renewed = new AtomicInteger();

		@Override
		public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
			this.lost.add(cause);
		}

		@Override
		public void onRenewed(LockRequest request, Lease lease) {
			this.renewed.incrementAndGet();
		}

	}

	static class Work {

		@DistributedLock(key = "#key")
		public String run(String key) {
			return "ran " + key;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AdaptersConfiguration {

		@Bean
		Heard heard() {
			return new Heard();
		}

		@Bean
		Work work() {
			return new Work();
		}

	}

	/**
	 * Plain threads that spin, four per core, until closed: a loaded machine inside the
	 * test JVM (as lock-test's engine suite has its own).
	 */
	static final class BusyThreads implements AutoCloseable {

		private final List<Thread> threads = new ArrayList<>();

		private volatile boolean running = true;

		private volatile long sink;

		static BusyThreads fourPerCore() {
			BusyThreads busy = new BusyThreads();
			for (int i = 0; i < 4 * Runtime.getRuntime().availableProcessors(); i++) {
				Thread thread = new Thread(busy::spin, "busy-" + i);
				thread.setDaemon(true);
				busy.threads.add(thread);
				thread.start();
			}
			return busy;
		}

		private void spin() {
			long n = 0;
			while (this.running) {
				if ((++n & 0xFFFFF) == 0) {
					this.sink = n;
				}
			}
		}

		@Override
		public void close() throws InterruptedException {
			this.running = false;
			for (Thread thread : this.threads) {
				thread.join(TimeUnit.SECONDS.toMillis(10));
			}
		}

	}

}
