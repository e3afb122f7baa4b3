package io.quorumlock.autoconfigure;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.HealthContributor;
import org.springframework.boot.actuate.health.HealthContributorRegistry;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DistributedLockHealthContributorAutoConfiguration} next to Boot's health
 * auto-configuration, with Spring Boot 3's health API ({@code lock-spring-boot41-tests}
 * holds the Boot 4 twin): one indicator in single mode, a composite in quorum mode.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HealthContributorAutoConfigurationIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private static final AutoConfigurations QUORUMLOCK = AutoConfigurations.of(BootLine.REDIS,
			QuorumLockAutoConfiguration.class, DistributedLockHealthContributorAutoConfiguration.class);

	private static final AutoConfigurations ACTUATOR = AutoConfigurations.of(EndpointAutoConfiguration.class,
			BootLine.HEALTH_CONTRIBUTORS, BootLine.HEALTH_ENDPOINT);

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(QUORUMLOCK)
		.withConfiguration(ACTUATOR)
		.withPropertyValues("quorumlock.rejoin-delay=0s", "quorumlock.node-timeout=1s",
				"quorumlock.nodes=" + String.join(",", redis.uris()));

	@Test
	void runInSingleModeShouldRegisterOneIndicator() {
		new ApplicationContextRunner().withConfiguration(QUORUMLOCK)
			.withConfiguration(ACTUATOR)
			.withPropertyValues("quorumlock.node-timeout=1s", "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + redis.node(0).port(), "management.health.redis.enabled=false")
			.run((context) -> {
				HealthContributor contributor = context.getBean(HealthContributorRegistry.class)
					.getContributor("distributedLock");
				assertThat(contributor).isInstanceOf(HealthIndicator.class);
				assertThat(((HealthIndicator) contributor).health().getStatus()).isEqualTo(Status.UP);
				assertThat(((HealthIndicator) contributor).health().getDetails()).containsEntry("mode", "single")
					.containsEntry("address", "127.0.0.1:" + redis.node(0).port());
			});
	}

	@Test
	void runInQuorumModeShouldRegisterComposite() {
		this.runner.run((context) -> {
			HealthContributor contributor = context.getBean(HealthContributorRegistry.class)
				.getContributor("distributedLock");
			assertThat(contributor).isInstanceOf(CompositeHealthContributor.class);
			assertThat(((CompositeHealthContributor) contributor).stream().map((named) -> named.getName()))
				.containsExactly("quorum", "node-1", "node-2", "node-3");
			assertThat(context.getBean(HealthEndpoint.class).healthForPath("distributedLock").getStatus())
				.isEqualTo(Status.UP);
		});
	}

}
