package io.quorumlock.autoconfigure;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DistributedLockHealthContributorAutoConfiguration}, one condition per test, on
 * three real masters.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DistributedLockHealthContributorAutoConfigurationIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private static final AutoConfigurations QUORUMLOCK = AutoConfigurations.of(BootLine.REDIS,
			QuorumLockAutoConfiguration.class, QuorumLockMetricsAutoConfiguration.class,
			QuorumLockObservationAutoConfiguration.class, LocksEndpointAutoConfiguration.class,
			DistributedLockHealthContributorAutoConfiguration.class);

	private static final AutoConfigurations METRICS = AutoConfigurations.of(BootLine.METRICS,
			BootLine.SIMPLE_METRICS_EXPORT, BootLine.COMPOSITE_METER_REGISTRY);

	private static final AutoConfigurations ACTUATOR = AutoConfigurations.of(EndpointAutoConfiguration.class,
			BootLine.HEALTH_CONTRIBUTORS, BootLine.HEALTH_ENDPOINT);

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(QUORUMLOCK)
		.withConfiguration(ACTUATOR)
		.withPropertyValues("quorumlock.rejoin-delay=0s", "quorumlock.node-timeout=1s",
				"quorumlock.nodes=" + String.join(",", redis.uris()));

	private final String key = "secret-order-" + UUID.randomUUID();

	@Test
	void runWhenHealthIndicatorDisabledShouldNotRegisterIt() {
		this.runner.withPropertyValues("management.health.distributedLock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("distributedLockHealthContributor"));
	}

	@Test
	void runWhenHealthDefaultsDisabledShouldNotRegisterIt() {
		this.runner.withPropertyValues("management.health.defaults.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("distributedLockHealthContributor"));
	}

}
