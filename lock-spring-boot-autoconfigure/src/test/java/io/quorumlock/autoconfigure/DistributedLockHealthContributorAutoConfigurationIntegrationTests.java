package io.quorumlock.autoconfigure;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
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

	private final ApplicationContextRunner runner = ObservabilityContexts.runner(redis);

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
