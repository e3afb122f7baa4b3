package io.quorumlock.autoconfigure;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.shedlock.SchedulerLockDeclarationException;
import io.quorumlock.testing.InMemoryLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SchedulerLockDeclarationFailureAnalyzer} names the {@code @SchedulerLock} (or
 * {@code @EnableSchedulerLock}) value the ShedLock provider refused, and says what to
 * write instead, where: on the start-up failures themselves, and for each kind of
 * refusal.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SchedulerLockDeclarationFailureAnalyzerTests {

	private final SchedulerLockDeclarationFailureAnalyzer analyzer = new SchedulerLockDeclarationFailureAnalyzer();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(QuorumLockAutoConfiguration.class, QuorumLockShedLockAutoConfiguration.class))
		.withBean(DistributedLockRegistry.class, InMemoryLockRegistry::new);

	@Test
	void anUnparsableLockAtMostForIsExplainedAtStartUp() {
		this.runner
			.withUserConfiguration(SchedulerLockStartupTests.Defaults.class,
					SchedulerLockStartupTests.UnparsableJob.class)
			.run((context) -> {
				FailureAnalysis analysis = this.analyzer.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).isEqualTo("The @SchedulerLock on UnparsableJob.run() is invalid: "
						+ "lockAtMostFor \"10 minutes\" is not a duration such as \"10m\" or \"PT10M\".");
				assertThat(analysis.getAction()).isEqualTo("Update the 'lockAtMostFor' attribute of @SchedulerLock on "
						+ "UnparsableJob.run(): write a duration such as \"30s\", \"10m\" or \"PT10M\", or a placeholder "
						+ "that resolves to one.");
			});
	}

	@Test
	void aTooShortLockAtMostForIsExplainedWithTheNodeTimeout() {
		this.runner
			.withUserConfiguration(SchedulerLockStartupTests.Defaults.class,
					SchedulerLockStartupTests.PlaceholderJob.class)
			.withPropertyValues("jobs.at-most=120ms")
			.run((context) -> {
				FailureAnalysis analysis = this.analyzer.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription())
					.startsWith("The @SchedulerLock on PlaceholderJob.run() is invalid: "
							+ "lockAtMostFor \"${jobs.at-most}\" is refused");
				assertThat(analysis.getAction()).startsWith("Update the 'lockAtMostFor' attribute of @SchedulerLock on "
						+ "PlaceholderJob.run(): lengthen it to more than three times quorumlock.node-timeout");
			});
	}

	@Test
	void aDefaultMinimumHoldLongerThanAJobsLockAtMostForIsExplainedOnTheConfigurationClass() {
		this.runner
			.withUserConfiguration(SchedulerLockStartupTests.LongDefaultLeast.class,
					SchedulerLockStartupTests.ShortJob.class)
			.run((context) -> {
				FailureAnalysis analysis = this.analyzer.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).startsWith(
						"The @EnableSchedulerLock on LongDefaultLeast is invalid: defaultLockAtLeastFor \"5m\" is refused");
				assertThat(analysis.getAction()).isEqualTo("Update the 'defaultLockAtLeastFor' attribute of "
						+ "@EnableSchedulerLock on LongDefaultLeast: keep the minimum hold within lockAtMostFor: shorten "
						+ "defaultLockAtLeastFor, or lengthen lockAtMostFor.");
			});
	}

	@Test
	void eachRefusalSaysWhatToWriteWhere() {
		assertThat(
				action("lockAtMostFor", "", "is missing, and no @EnableSchedulerLock(defaultLockAtMostFor) was found"))
			.startsWith("Add lockAtMostFor to @SchedulerLock on ReportJob.run(), longer than the job ever runs");
		assertThat(action("lockAtMostFor", "${jobs.nightly}", "cannot be resolved: Could not resolve placeholder"))
			.startsWith("Define the property that @SchedulerLock on ReportJob.run() names in its 'lockAtMostFor' "
					+ "attribute");
		assertThat(action("lockAtMostFor", "0s", "must be positive, was 0 ms"))
			.endsWith("write a positive duration, longer than the job ever runs.");
		assertThat(action("lockAtLeastFor", "-1s", "must not be negative, was -1000 ms"))
			.endsWith("write zero (release at once) or a positive duration.");
		FailureAnalysis missing = this.analyzer.analyze(new SchedulerLockDeclarationException(
				"@SchedulerLock on ReportJob.run()", "lockAtMostFor", "", "is missing"));
		assertThat(missing.getDescription())
			.isEqualTo("The @SchedulerLock on ReportJob.run() is invalid: " + "lockAtMostFor is missing.");
	}

	@Test
	void theAnalyzerIsRegistered() {
		// others need Boot's own constructor arguments: left out here
		List<String> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
			.load(FailureAnalyzer.class, SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> {
			}))
			.stream()
			.map((analyzer) -> analyzer.getClass().getName())
			.toList();
		assertThat(analyzers).contains(SchedulerLockDeclarationFailureAnalyzer.class.getName());
	}

	@Test
	void otherFailuresAreNotAnalyzed() {
		assertThat(this.analyzer.analyze(new IllegalStateException("unrelated"))).isNull();
	}

	private String action(String attribute, String value, String reason) {
		return this.analyzer
			.analyze(new SchedulerLockDeclarationException("@SchedulerLock on ReportJob.run()", attribute, value,
					reason))
			.getAction();
	}

}
