package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.shedlock.QuorumLockProvider;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock on quorumlock: the auto-configured {@link LockProvider} runs a real
 * {@code @SchedulerLock} job once per tick across three contexts, keeps the lock for
 * {@code lockAtLeastFor}, skips without a quorum, and backs off for an application's own
 * provider.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShedLockIntegrationTests {

	private static final int TICKS = 10;

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(QuorumLockAutoConfiguration.class, QuorumLockShedLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.nodes=" + String.join(",", redis.uris()), "quorumlock.rejoin-delay=0s",
				BoundedWait.NODE_TIMEOUT);

	private final AlignedTaskScheduler.Ticks ticks = new AlignedTaskScheduler.Ticks();

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@AfterEach
	void closeInstances() {
		this.instances.forEach(ConfigurableApplicationContext::close);
	}

	private static LockConfiguration configuration(String name, Duration atMost, Duration atLeast) {
		return new LockConfiguration(Instant.now(), name, atMost, atLeast);
	}

	@Test
	void providerIsAutoConfigured() {
		this.runner
			.run((context) -> assertThat(context).getBean(LockProvider.class).isInstanceOf(QuorumLockProvider.class));
	}

	@Test
	void applicationProviderWins() {
		LockProvider own = (configuration) -> Optional.empty();
		this.runner.withBean(LockProvider.class, () -> own)
			.run((context) -> assertThat(context).getBean(LockProvider.class).isSameAs(own));
	}

	@Test
	void secondLockIsRefusedAndLockAtLeastForIsHonoured() {
		this.runner.run((context) -> {
			LockProvider provider = context.getBean(LockProvider.class);
			Optional<SimpleLock> lock = provider
				.lock(configuration("report", Duration.ofSeconds(10), Duration.ofSeconds(5)));
			assertThat(lock).isPresent();
			assertThat(provider.lock(configuration("report", Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
			lock.get().unlock();
			for (RedisServer node : redis.nodes()) {
				await().atMost(Duration.ofSeconds(5))
					.until(() -> node.pttl("lock:shedlock:{report}") > 0
							&& node.pttl("lock:shedlock:{report}") <= 5000);
			}
			assertThat(provider.lock(configuration("report", Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
		});
	}

	@Test
	void lockAtMostForIsTheLeaseWithoutRenewal() {
		this.runner.run((context) -> {
			LockProvider provider = context.getBean(LockProvider.class);
			Optional<SimpleLock> lock = provider.lock(configuration("short", Duration.ofMillis(1600), Duration.ZERO));
			assertThat(lock).isPresent();
			for (RedisServer node : redis.nodes()) {
				await().atMost(Duration.ofSeconds(5)).until(() -> node.pttl("lock:shedlock:{short}") > 0);
				assertThat(node.pttl("lock:shedlock:{short}")).isLessThanOrEqualTo(1600);
			}
			// another instance gets it once lockAtMostFor is over, though the first never
			// unlocked
			try (QuorumLockEngine other = QuorumLockEngine.builder()
				.nodes(redis.uris())
				.nodeTimeout(Duration.ofMillis(500))
				.rejoinDelay(Duration.ZERO)
				.build()) {
				LockProvider otherProvider = new QuorumLockProvider(other);
				Optional<SimpleLock> next = await().atMost(Duration.ofSeconds(10))
					.until(() -> otherProvider.lock(configuration("short", Duration.ofSeconds(5), Duration.ZERO)),
							Optional::isPresent);
				next.get().unlock();
			}
			// the overrun job finishing late unlocks without failing
			lock.get().unlock();
		});
	}

	@Test
	void providerSkipsWithoutAQuorum() {
		this.runner.run((context) -> {
			LockProvider provider = context.getBean(LockProvider.class);
			redis.node(1).kill();
			redis.node(2).kill();
			// a skipped tick, never an error of the scheduled task
			assertThat(provider.lock(configuration("report", Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
		});
	}

	@Test
	void schedulerLockJobRunsOncePerTickAcrossThreeInstances() {
		Instant epoch = Instant.now();
		for (int i = 0; i < 3; i++) {
			this.instances.add(start("instance-" + i, epoch, Duration.ofMillis(50L * i)));
		}
		long first = await().atMost(Duration.ofSeconds(30)).until(this::firstTickFiredByAll, (tick) -> tick != null)
				+ 2;
		long last = first + TICKS - 1;
		awaitFiredByAll(last + 1);
		closeInstances();
		for (long tick = first; tick <= last; tick++) {
			assertThat(this.ticks.runs(tick)).as("runs of tick %d", tick).isEqualTo(1);
		}
	}

	@Test
	void schedulerLockJobWithoutQuorumNeverRuns() {
		redis.node(1).kill();
		redis.node(2).kill();
		Instant epoch = Instant.now();
		this.instances.add(start("instance-0", epoch, Duration.ZERO));
		awaitFiredByAll(List.of("instance-0"), this.ticks.firedBy("instance-0").size() + 3L);
		assertThat(this.ticks.firedBy("instance-0")).hasSizeGreaterThanOrEqualTo(3);
		for (long tick : this.ticks.firedBy("instance-0")) {
			assertThat(this.ticks.runs(tick)).isZero();
		}
	}

	private Long firstTickFiredByAll() {
		long first = Long.MIN_VALUE;
		for (int i = 0; i < 3; i++) {
			List<Long> fired = new ArrayList<>(this.ticks.firedBy("instance-" + i));
			if (fired.isEmpty()) {
				return null;
			}
			first = Math.max(first, Collections.min(fired));
		}
		return first;
	}

	private void awaitFiredByAll(long tick) {
		for (int i = 0; i < 3; i++) {
			String instance = "instance-" + i;
			await(instance + " fired tick " + tick).atMost(Duration.ofSeconds(30))
				.until(() -> this.ticks.firedBy(instance).contains(tick));
		}
	}

	private void awaitFiredByAll(List<String> instances, long count) {
		for (String instance : instances) {
			await(instance + " fired " + count + " ticks").atMost(Duration.ofSeconds(30))
				.until(() -> this.ticks.firedBy(instance).size() >= count);
		}
	}

	private ConfigurableApplicationContext start(String instance, Instant epoch, Duration offset) {
		return new SpringApplicationBuilder(ShedLockJobConfiguration.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("quorumlock.nodes=" + String.join(",", redis.uris()), "quorumlock.rejoin-delay=0s",
					BoundedWait.NODE_TIMEOUT, "spring.main.banner-mode=off")
			.initializers((GenericApplicationContext context) -> {
				context.registerBean(AlignedTaskScheduler.Ticks.class, () -> this.ticks);
				context.registerBean("taskScheduler", AlignedTaskScheduler.class,
						() -> new AlignedTaskScheduler(epoch, offset, this.ticks, instance));
			})
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "10s")
	@ImportAutoConfiguration({ QuorumLockAutoConfiguration.class, QuorumLockShedLockAutoConfiguration.class })
	static class ShedLockJobConfiguration {

		@Bean
		ReportJob reportJob(AlignedTaskScheduler.Ticks ticks) {
			return new ReportJob(ticks);
		}

	}

	/** An existing ShedLock job, unchanged. */
	static class ReportJob {

		private final AlignedTaskScheduler.Ticks ticks;

		ReportJob(AlignedTaskScheduler.Ticks ticks) {
			this.ticks = ticks;
		}

		@Scheduled(fixedRate = ScheduledJobIntegrationTests.PERIOD_MS)
		@SchedulerLock(name = "nightly-report", lockAtMostFor = "5s", lockAtLeastFor = "350ms")
		public void run() {
			this.ticks.ran(AlignedTaskScheduler.tick());
		}

	}

}
