package io.quorumlock.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.integration.QuorumLockRegistry;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of a Spring Integration {@link LockRegistry} on quorumlock's
 * {@link DistributedLockRegistry}, when Spring Integration is on the class path and the
 * application defines no {@code LockRegistry} of its own.
 */
@AutoConfiguration(after = QuorumLockAutoConfiguration.class)
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(DistributedLockRegistry.class)
public class QuorumLockIntegrationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	QuorumLockRegistry quorumLockIntegrationLockRegistry(DistributedLockRegistry registry) {
		return new QuorumLockRegistry(registry);
	}

}
