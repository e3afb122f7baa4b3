package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import io.quorumlock.RegistryStatus;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.shedlock.QuorumLockProvider;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's lock extension on quorumlock: {@code LockExtender.extendActiveLock} in a
 * real {@code @SchedulerLock} job keeps the lock past its {@code lockAtMostFor}, an
 * extended lock replaces the original, a new {@code lockAtLeastFor} is kept after the
 * unlock, and a lock no longer held (expired, or without a quorum) is not extended. A
 * second engine with its own provider stands for another instance.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShedLockExtensionIntegrationTests {

	private static final String KEY = "lock:shedlock:{%s}";

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	/**
	 * Not a test of timeouts: as much room for a loaded machine's answers as the 1 s
	 * {@code lockAtMostFor} of these jobs allows (below a third of it).
	 */
	private static final String NODE_TIMEOUT = "quorumlock.node-timeout=300ms";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(QuorumLockAutoConfiguration.class, QuorumLockShedLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.nodes=" + String.join(",", redis.uris()), "quorumlock.rejoin-delay=0s",
				NODE_TIMEOUT);

	private QuorumLockEngine otherEngine;

	private LockProvider otherInstance;

	@BeforeEach
	void startOtherInstance() {
		this.otherEngine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofMillis(300))
			.rejoinDelay(Duration.ZERO)
			.build();
		this.otherInstance = new QuorumLockProvider(this.otherEngine);
		awaitConnected(this.otherEngine);
	}

	/**
	 * Wait until an engine reaches every node (restarted by the fixture before each
	 * test).
	 */
	private static void awaitConnected(RegistryStatus engine) {
		await("connected to every node").atMost(Duration.ofSeconds(10))
			.until(() -> engine.nodes().stream().allMatch(RegistryStatus.Node::up));
	}

	@AfterEach
	void closeOtherInstance() {
		this.otherEngine.close();
	}

	private static LockConfiguration configuration(String name, Duration atMost, Duration atLeast) {
		return new LockConfiguration(Instant.now(), name, atMost, atLeast);
	}

	private static SimpleLock held(LockProvider provider, String name, Duration lockAtMostFor) {
		return provider.lock(configuration(name, lockAtMostFor, Duration.ZERO)).orElseThrow();
	}

	private static void awaitTtlEverywhere(String name, long aboveMillis, long atMostMillis) {
		String key = String.format(KEY, name);
		for (RedisServer node : redis.nodes()) {
			await("TTL of " + key + " on " + node).atMost(Duration.ofSeconds(5))
				.until(() -> node.pttl(key) > aboveMillis && node.pttl(key) <= atMostMillis);
		}
	}

	/** Whether the other instance can take the lock now (and then lets it go). */
	private boolean otherInstanceTakes(String name) {
		return takes(this.otherInstance, name);
	}

	private static boolean takes(LockProvider provider, String name) {
		Optional<SimpleLock> lock = provider.lock(configuration(name, Duration.ofSeconds(5), Duration.ZERO));
		lock.ifPresent(SimpleLock::unlock);
		return lock.isPresent();
	}

	@Test
	void extendActiveLockKeepsTheJobsLockPastLockAtMostFor() throws Exception {
		ExtendingJob job = new ExtendingJob();
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ExtendingJobConfiguration.class)
			.web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("quorumlock.nodes=" + String.join(",", redis.uris()), "quorumlock.rejoin-delay=0s",
					NODE_TIMEOUT, "spring.main.banner-mode=off")
			.initializers((GenericApplicationContext app) -> app.registerBean(ExtendingJob.class, () -> job))
			.run()) {
			assertThat(job.extended.await(30, TimeUnit.SECONDS)).isTrue();
			assertThat(job.failure.get()).isNull();
			// taken after the job's lock, with the same lockAtMostFor: once the job's
			// instance can take it, the job's original lockAtMostFor is over (an instance
			// waits for its own unreleased lock to be unlocked, so not this one)
			SimpleLock witness = this.otherInstance
				.lock(configuration("witness", ExtendingJob.LOCK_AT_MOST_FOR, Duration.ZERO))
				.orElseThrow();
			awaitTtlEverywhere(ExtendingJob.NAME, ExtendingJob.LOCK_AT_MOST_FOR.toMillis(),
					ExtendingJob.EXTENDED_TO.toMillis());
			LockProvider jobsInstance = context.getBean(LockProvider.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> takes(jobsInstance, "witness"));
			assertThat(otherInstanceTakes(ExtendingJob.NAME)).isFalse();
			job.finish.countDown();
			// the job's unlock frees it, long before the extended lockAtMostFor
			await().atMost(Duration.ofSeconds(10)).until(() -> otherInstanceTakes(ExtendingJob.NAME));
			assertThat(job.failure.get()).isNull();
			assertThat(job.extensions.get()).isOne();
			witness.unlock();
		}
	}

	@Test
	void extendedLockReplacesTheOriginal() {
		this.runner.run((context) -> {
			awaitConnected(context.getBean(RegistryStatus.class));
			LockProvider provider = context.getBean(LockProvider.class);
			SimpleLock original = held(provider, "report", Duration.ofSeconds(1));
			SimpleLock extended = original.extend(Duration.ofSeconds(20), Duration.ZERO).orElseThrow();
			awaitTtlEverywhere("report", 1000, 20_000);
			assertThatIllegalStateException().isThrownBy(original::unlock)
				.withMessageContaining("was already unlocked or extended");
			assertThatIllegalStateException().isThrownBy(() -> original.extend(Duration.ofSeconds(20), Duration.ZERO))
				.withMessageContaining("was already unlocked or extended");
			assertThat(otherInstanceTakes("report")).isFalse();
			SimpleLock again = extended.extend(Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
			again.unlock();
			assertThat(otherInstanceTakes("report")).isTrue();
		});
	}

	@Test
	void newLockAtLeastForIsKeptAfterTheUnlock() {
		this.runner.run((context) -> {
			awaitConnected(context.getBean(RegistryStatus.class));
			LockProvider provider = context.getBean(LockProvider.class);
			SimpleLock lock = held(provider, "report", Duration.ofSeconds(10));
			lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(5)).orElseThrow().unlock();
			awaitTtlEverywhere("report", 0, 5000);
			assertThat(otherInstanceTakes("report")).isFalse();
		});
	}

	@Test
	void lockAtLeastForLongerThanLockAtMostForIsRefusedAndTheLockStaysUsable() {
		this.runner.run((context) -> {
			awaitConnected(context.getBean(RegistryStatus.class));
			LockProvider provider = context.getBean(LockProvider.class);
			SimpleLock lock = held(provider, "report", Duration.ofSeconds(10));
			assertThat(org.assertj.core.api.Assertions
				.catchThrowable(() -> lock.extend(Duration.ofSeconds(1), Duration.ofSeconds(2))))
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessageContaining("holdAtLeast 2000 ms is longer than the lease 1000 ms");
			lock.extend(Duration.ofSeconds(10), Duration.ZERO).orElseThrow().unlock();
			assertThat(otherInstanceTakes("report")).isTrue();
		});
	}

	@Test
	void expiredLockIsNotExtended() {
		this.runner.run((context) -> {
			awaitConnected(context.getBean(RegistryStatus.class));
			LockProvider provider = context.getBean(LockProvider.class);
			SimpleLock lock = held(provider, "short", Duration.ofMillis(1600));
			SimpleLock taken = await().atMost(Duration.ofSeconds(10))
				.until(() -> this.otherInstance.lock(configuration("short", Duration.ofSeconds(10), Duration.ZERO)),
						Optional::isPresent)
				.orElseThrow();
			assertThat(lock.extend(Duration.ofSeconds(20), Duration.ZERO)).isEmpty();
			// spent, as ShedLock's own locks are once extended; what was left of its
			// lease
			// was released without touching the other's lock
			assertThatIllegalStateException().isThrownBy(lock::unlock);
			awaitTtlEverywhere("short", 0, 10_000);
			assertThat(provider.lock(configuration("short", Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
			taken.unlock();
		});
	}

	@Test
	void extensionWithoutAQuorumIsEmpty() {
		this.runner.run((context) -> {
			awaitConnected(context.getBean(RegistryStatus.class));
			LockProvider provider = context.getBean(LockProvider.class);
			SimpleLock lock = held(provider, "report", Duration.ofSeconds(10));
			redis.node(1).kill();
			redis.node(2).kill();
			assertThat(lock.extend(Duration.ofSeconds(20), Duration.ZERO)).isEmpty();
			assertThatIllegalStateException().isThrownBy(lock::unlock);
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "10s")
	@ImportAutoConfiguration({ QuorumLockAutoConfiguration.class, QuorumLockShedLockAutoConfiguration.class })
	static class ExtendingJobConfiguration {

	}

	/**
	 * A job whose first run extends its lock, then waits for the test to let it finish;
	 * it is scheduled often, so that a tick refused while the engine still connects (a
	 * quorum unavailable) is followed by another, and later runs do nothing.
	 */
	static class ExtendingJob {

		static final String NAME = "long-job";

		static final Duration LOCK_AT_MOST_FOR = Duration.ofSeconds(1);

		static final Duration EXTENDED_TO = Duration.ofSeconds(30);

		final CountDownLatch extended = new CountDownLatch(1);

		final CountDownLatch finish = new CountDownLatch(1);

		final AtomicReference<Throwable> failure = new AtomicReference<>();

		final AtomicInteger extensions = new AtomicInteger();

		@Scheduled(fixedDelay = 100)
		@SchedulerLock(name = NAME, lockAtMostFor = "1s")
		public void run() {
			if (this.extended.getCount() == 0) {
				return;
			}
			this.extensions.incrementAndGet();
			try {
				LockExtender.extendActiveLock(EXTENDED_TO, Duration.ZERO);
				this.extended.countDown();
				if (!this.finish.await(60, TimeUnit.SECONDS)) {
					throw new IllegalStateException("not told to finish");
				}
			}
			catch (Throwable ex) {
				this.failure.set(ex);
				this.extended.countDown();
			}
		}

	}

}
