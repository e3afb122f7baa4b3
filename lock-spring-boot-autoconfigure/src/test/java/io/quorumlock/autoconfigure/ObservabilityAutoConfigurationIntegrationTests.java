package io.quorumlock.autoconfigure;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.actuate.LockMetrics;
import io.quorumlock.actuate.LocksEndpoint;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.RedisServers;

import static io.quorumlock.autoconfigure.ObservabilityContexts.METRICS;
import static io.quorumlock.autoconfigure.ObservabilityContexts.QUORUMLOCK;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The observability auto-configurations together
 * ({@link QuorumLockMetricsAutoConfiguration},
 * {@link QuorumLockObservationAutoConfiguration}, {@link LocksEndpointAutoConfiguration},
 * {@link DistributedLockHealthContributorAutoConfiguration}): what holds for all of them
 * at once. Each one's own conditions are in its own test class.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ObservabilityAutoConfigurationIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final ApplicationContextRunner runner = ObservabilityContexts.runner(redis);

	private final String key = "secret-order-" + UUID.randomUUID();

	@Test
	void runWhenQuorumLockDisabledShouldBackOffEverything() {
		this.runner.withConfiguration(METRICS)
			.withConfiguration(AutoConfigurations.of(BootLine.OBSERVATION))
			.withPropertyValues("quorumlock.enabled=false", "management.endpoints.web.exposure.include=locks",
					"management.endpoint.locks.access=UNRESTRICTED")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(DistributedLockRegistry.class)
				.doesNotHaveBean(LockMetrics.class)
				.doesNotHaveBean(LocksEndpoint.class)
				.doesNotHaveBean("distributedLockHealthContributor"));
	}

	@Test
	void runWithoutActuatorOrMicrometerOnTheClasspathShouldStillStart() {
		new ApplicationContextRunner().withConfiguration(QUORUMLOCK)
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate",
					"org.springframework.boot.health", "io.micrometer"))
			.withPropertyValues(ObservabilityContexts.properties(redis))
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.hasSingleBean(QuorumLockEngine.class)
					.doesNotHaveBean("lockMetrics")
					.doesNotHaveBean("observedLockRegistry")
					.doesNotHaveBean("locksEndpoint")
					.doesNotHaveBean("distributedLockHealthContributor");
				assertThat(context.getBean(QuorumLockEngine.class).nodes()).hasSize(3);
			});
	}

}
