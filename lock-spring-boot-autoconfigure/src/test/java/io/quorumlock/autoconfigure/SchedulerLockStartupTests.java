package io.quorumlock.autoconfigure;

import java.util.Optional;

import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.shedlock.SchedulerLockDeclarationException;
import io.quorumlock.testing.InMemoryLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code @SchedulerLock} values and {@code @EnableSchedulerLock} defaults are checked
 * at start-up: a value the provider cannot honour stops it with one message naming the
 * method (or configuration class), the attribute, the value and the figures; a good one,
 * such as a ten-minute {@code lockAtMostFor}, starts. No Redis: the checks run once the
 * singletons exist.
 */
class SchedulerLockStartupTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(QuorumLockAutoConfiguration.class, QuorumLockShedLockAutoConfiguration.class))
		.withBean(DistributedLockRegistry.class, InMemoryLockRegistry::new);

	@Test
	void runWithTenMinuteLockAtMostForShouldStart() {
		this.runner.withUserConfiguration(Defaults.class, GoodJob.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void runWithUnparsableLockAtMostForShouldFailNamingTheMethod() {
		this.runner.withUserConfiguration(Defaults.class, UnparsableJob.class)
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(SchedulerLockDeclarationException.class)
				.hasMessage("@SchedulerLock on UnparsableJob.run(): lockAtMostFor \"10 minutes\" is not a duration "
						+ "such as \"10m\" or \"PT10M\""));
	}

	@Test
	void runWithLockAtLeastForLongerThanLockAtMostForShouldFailWithTheFigures() {
		this.runner.withUserConfiguration(Defaults.class, LongLeastJob.class)
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(SchedulerLockDeclarationException.class)
				.hasMessage("@SchedulerLock on LongLeastJob.run(): lockAtLeastFor \"15m\" is refused: 900000 ms is "
						+ "longer than lockAtMostFor 600000 ms (@SchedulerLock on LongLeastJob.run())"));
	}

	@Test
	void runWithPlaceholderResolvedToATooShortLockAtMostForShouldFailWithTheFigures() {
		this.runner.withUserConfiguration(Defaults.class, PlaceholderJob.class)
			.withPropertyValues("jobs.at-most=120ms")
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(SchedulerLockDeclarationException.class)
				.hasMessageStartingWith("@SchedulerLock on PlaceholderJob.run(): lockAtMostFor \"${jobs.at-most}\" "
						+ "is refused: it is not longer than the lease of 'shedlock' locks, 30000 ms")
				.hasMessageContaining("lease 120 ms is too short for node timeout 50 ms"));
	}

	@Test
	void runWithUnresolvablePlaceholderShouldFailNamingIt() {
		this.runner.withUserConfiguration(Defaults.class, PlaceholderJob.class)
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(SchedulerLockDeclarationException.class)
				.hasMessage(
						"@SchedulerLock on PlaceholderJob.run(): lockAtMostFor \"${jobs.at-most}\" is not a duration "
								+ "such as \"10m\" or \"PT10M\""));
	}

	@Test
	void runWithUnparsableDefaultShouldFail() {
		// ShedLock reads its defaults when it creates its own beans, and refuses this one
		this.runner.withUserConfiguration(BadDefaults.class, GoodJob.class)
			.run((context) -> assertThat(context).hasFailed());
	}

	@Test
	void runWithDefaultLockAtLeastForLongerThanTheMethodsLockAtMostForShouldFail() {
		this.runner.withUserConfiguration(LongDefaultLeast.class, ShortJob.class)
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(SchedulerLockDeclarationException.class)
				.hasMessage("@EnableSchedulerLock on LongDefaultLeast: defaultLockAtLeastFor \"5m\" is refused: "
						+ "300000 ms is longer than lockAtMostFor 60000 ms (@SchedulerLock on ShortJob.run())"));
	}

	@Test
	void runWithAnotherLockProviderShouldNotCheck() {
		this.runner.withUserConfiguration(Defaults.class, UnparsableJob.class)
			.withBean(LockProvider.class, () -> (configuration) -> Optional.empty())
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableSchedulerLock(defaultLockAtMostFor = "10m")
	static class Defaults {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableSchedulerLock(defaultLockAtMostFor = "ten minutes")
	static class BadDefaults {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableSchedulerLock(defaultLockAtMostFor = "10m", defaultLockAtLeastFor = "5m")
	static class LongDefaultLeast {

	}

	static class GoodJob {

		@SchedulerLock(name = "good", lockAtMostFor = "10m", lockAtLeastFor = "30s")
		public void run() {
		}

	}

	static class UnparsableJob {

		@SchedulerLock(name = "unparsable", lockAtMostFor = "10 minutes")
		public void run() {
		}

	}

	static class LongLeastJob {

		@SchedulerLock(name = "long-least", lockAtMostFor = "10m", lockAtLeastFor = "15m")
		public void run() {
		}

	}

	static class PlaceholderJob {

		@SchedulerLock(name = "placeholder", lockAtMostFor = "${jobs.at-most}")
		public void run() {
		}

	}

	static class ShortJob {

		@SchedulerLock(name = "short", lockAtMostFor = "1m")
		public void run() {
		}

	}

}
