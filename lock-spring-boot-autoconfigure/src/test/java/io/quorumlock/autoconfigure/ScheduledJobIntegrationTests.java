package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import io.quorumlock.DistributedLock;
import io.quorumlock.OnFailure;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code @Scheduled} recipe on three application contexts (three "instances", each
 * with its own engine and scheduler) over a quorum of three masters. The instances tick
 * on the same grid, 50 ms apart; the job body counts its runs per tick. With
 * {@code holdAtLeast} each tick runs exactly once, also after a master is killed; without
 * it, the later instances run the same tick again, which proves the count can fail.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ScheduledJobIntegrationTests {

	static final long PERIOD_MS = 500;

	private static final Duration OFFSET = Duration.ofMillis(50);

	private static final int TICKS = 10;

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final AlignedTaskScheduler.Ticks ticks = new AlignedTaskScheduler.Ticks();

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@AfterEach
	void closeInstances() {
		this.instances.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void withHoldAtLeastEachTickRunsExactlyOnce() {
		List<Long> range = runTicks(HeldJobConfiguration.class, false);
		for (long tick : range) {
			assertThat(this.ticks.runs(tick)).as("runs of tick %d", tick).isEqualTo(1);
		}
	}

	@Test
	void withHoldAtLeastEachTickRunsExactlyOnceWhenAMasterIsKilledPartWay() {
		List<Long> range = runTicks(HeldJobConfiguration.class, true);
		for (long tick : range) {
			assertThat(this.ticks.runs(tick)).as("runs of tick %d", tick).isEqualTo(1);
		}
	}

	@Test
	void withoutHoldAtLeastLaterInstancesRunTheSameTickAgain() {
		List<Long> range = runTicks(UnheldJobConfiguration.class, false);
		for (long tick : range) {
			assertThat(this.ticks.runs(tick)).as("runs of tick %d", tick).isPositive();
		}
		assertThat(range).anySatisfy((tick) -> assertThat(this.ticks.runs(tick)).isGreaterThan(1));
	}

	/**
	 * Start three instances, let {@link #TICKS} ticks pass on all of them (killing a
	 * master after the third if asked), close them, and return the ticks every instance
	 * fired for.
	 */
	private List<Long> runTicks(Class<?> job, boolean killAMaster) {
		Instant epoch = Instant.now();
		for (int i = 0; i < 3; i++) {
			this.instances.add(start("instance-" + i, job, epoch, OFFSET.multipliedBy(i)));
		}
		long first = await().atMost(Duration.ofSeconds(30)).until(this::firstTickFiredByAll, (tick) -> tick != null);
		long last = first + TICKS - 1;
		if (killAMaster) {
			awaitFiredByAll(first + 2);
			redis.node(2).kill();
		}
		awaitFiredByAll(last + 1); // tick `last` is over on every instance
		closeInstances();
		this.instances.clear();
		return LongStream.rangeClosed(first, last).boxed().toList();
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

	private ConfigurableApplicationContext start(String instance, Class<?> job, Instant epoch, Duration offset) {
		return new SpringApplicationBuilder(job).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("quorumlock.nodes=" + String.join(",", redis.uris()), "quorumlock.rejoin-delay=0s",
					"quorumlock.node-timeout=100ms", "spring.main.banner-mode=off")
			.initializers((GenericApplicationContext context) -> {
				context.registerBean(AlignedTaskScheduler.Ticks.class, () -> this.ticks);
				context.registerBean("taskScheduler", AlignedTaskScheduler.class,
						() -> new AlignedTaskScheduler(epoch, offset, this.ticks, instance));
			})
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration(QuorumLockAutoConfiguration.class)
	static class HeldJobConfiguration {

		@Bean
		HeldJob heldJob(AlignedTaskScheduler.Ticks ticks) {
			return new HeldJob(ticks);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration(QuorumLockAutoConfiguration.class)
	static class UnheldJobConfiguration {

		@Bean
		UnheldJob unheldJob(AlignedTaskScheduler.Ticks ticks) {
			return new UnheldJob(ticks);
		}

	}

	/** The documented recipe. */
	static class HeldJob {

		private final AlignedTaskScheduler.Ticks ticks;

		HeldJob(AlignedTaskScheduler.Ticks ticks) {
			this.ticks = ticks;
		}

		@Scheduled(fixedRate = PERIOD_MS)
		@DistributedLock(name = "report", key = "'nightly-report'", lease = "5s", holdAtLeast = "350ms",
				onFailure = OnFailure.SKIP)
		public void run() {
			this.ticks.ran(AlignedTaskScheduler.tick());
		}

	}

	/** The same job without holdAtLeast: at most one at a time, not once per tick. */
	static class UnheldJob {

		private final AlignedTaskScheduler.Ticks ticks;

		UnheldJob(AlignedTaskScheduler.Ticks ticks) {
			this.ticks = ticks;
		}

		@Scheduled(fixedRate = PERIOD_MS)
		@DistributedLock(name = "report", key = "'nightly-report'", lease = "5s", onFailure = OnFailure.SKIP)
		public void run() {
			this.ticks.ran(AlignedTaskScheduler.tick());
		}

	}

}
