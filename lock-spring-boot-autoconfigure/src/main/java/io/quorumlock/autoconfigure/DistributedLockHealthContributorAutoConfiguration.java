package io.quorumlock.autoconfigure;

import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.RegistryStatus;
import io.quorumlock.actuate.Boot4DistributedLockHealth;
import io.quorumlock.actuate.DistributedLockHealth;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the {@code distributedLock} health contributor: one indicator in
 * single mode, a composite of the quorum and each node in quorum mode (see
 * {@link DistributedLockHealth}). UP when a quorum of nodes is up and voting, DOWN
 * otherwise; node details carry {@code host:port}, never credentials.
 * {@code management.health.distributedLock.enabled=false} removes it.
 * <p>
 * One nested configuration per Spring Boot line, each behind the class check of its
 * line's health API ({@code spring-boot-actuator} on Boot 3, {@code spring-boot-health}
 * on Boot 4); the actuator conditions sit one level further in, so that an application
 * without actuator, or on the other line, never loads them.
 */
@AutoConfiguration(after = QuorumLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "quorumlock.enabled", matchIfMissing = true)
public class DistributedLockHealthContributorAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { "org.springframework.boot.actuate.health.HealthContributor",
			"org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator" })
	static class Boot3 {

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnSingleCandidate(RegistryStatus.class)
		@ConditionalOnEnabledHealthIndicator("distributedLock")
		static class DistributedLockHealthContributorConfiguration {

			@Bean
			@ConditionalOnMissingBean(name = { "distributedLockHealthIndicator", "distributedLockHealthContributor" })
			HealthContributor distributedLockHealthContributor(RegistryStatus status) {
				return DistributedLockHealth.contributor(status);
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { "org.springframework.boot.health.contributor.HealthContributor",
			"org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator" })
	static class Boot4 {

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnSingleCandidate(RegistryStatus.class)
		@org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator("distributedLock")
		static class DistributedLockHealthContributorConfiguration {

			@Bean
			@ConditionalOnMissingBean(name = { "distributedLockHealthIndicator", "distributedLockHealthContributor" })
			org.springframework.boot.health.contributor.HealthContributor distributedLockHealthContributor(
					RegistryStatus status) {
				return Boot4DistributedLockHealth.contributor(status);
			}

		}

	}

}
