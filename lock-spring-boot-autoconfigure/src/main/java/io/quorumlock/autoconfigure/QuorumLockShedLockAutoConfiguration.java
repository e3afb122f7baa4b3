package io.quorumlock.autoconfigure;

import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.shedlock.QuorumLockProvider;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of a ShedLock {@link LockProvider} on quorumlock's
 * {@link DistributedLockRegistry}, when ShedLock is on the class path and the application
 * defines no {@code LockProvider} of its own: {@code @SchedulerLock} jobs then lock on
 * the quorum without a change.
 */
@AutoConfiguration(after = QuorumLockAutoConfiguration.class)
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBean(DistributedLockRegistry.class)
public class QuorumLockShedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	QuorumLockProvider quorumLockShedLockProvider(DistributedLockRegistry registry) {
		return new QuorumLockProvider(registry);
	}

}
