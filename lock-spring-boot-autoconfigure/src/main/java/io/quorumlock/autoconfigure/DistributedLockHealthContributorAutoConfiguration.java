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
import io.quorumlock.actuate.DistributedLockHealth;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the {@code distributedLock} health contributor: one indicator in
 * single mode, a composite of the quorum and each node in quorum mode (see
 * {@link DistributedLockHealth}). UP when a quorum of nodes is up and voting, DOWN
 * otherwise; node details carry {@code host:port}, never credentials.
 * {@code management.health.distributedLock.enabled=false} removes it.
 * <p>
 * The actuator conditions sit on a nested class, behind the class check, so that an
 * application without actuator never loads them.
 */
@AutoConfiguration(after = QuorumLockAutoConfiguration.class)
@ConditionalOnClass({ HealthContributor.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBooleanProperty(name = "quorumlock.enabled", matchIfMissing = true)
public class DistributedLockHealthContributorAutoConfiguration {

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
