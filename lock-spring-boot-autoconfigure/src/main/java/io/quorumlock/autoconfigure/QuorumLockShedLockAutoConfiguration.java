package io.quorumlock.autoconfigure;

import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.shedlock.QuorumLockProvider;
import io.quorumlock.shedlock.SchedulerLockValidator;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of a ShedLock {@link LockProvider} on quorumlock's
 * {@link DistributedLockRegistry}, when ShedLock is on the class path and the application
 * defines no {@code LockProvider} of its own: {@code @SchedulerLock} jobs then lock on
 * the quorum without a change, and their {@code @SchedulerLock} values are checked at
 * start-up ({@link SchedulerLockValidator}).
 */
@AutoConfiguration(after = QuorumLockAutoConfiguration.class)
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBean(DistributedLockRegistry.class)
public class QuorumLockShedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	QuorumLockProvider quorumLockShedLockProvider(DistributedLockRegistry registry, QuorumLockProperties properties) {
		String name = QuorumLockProvider.DEFAULT_NAME;
		return new QuorumLockProvider(registry, name,
				ConfiguredLockOptions.forName(properties, name).lease().orElse(QuorumLockProvider.DEFAULT_LEASE));
	}

	@Bean
	@ConditionalOnClass(name = "net.javacrumbs.shedlock.spring.annotation.SchedulerLock")
	static SchedulerLockValidator quorumLockSchedulerLockValidator(ObjectProvider<LockProvider> provider,
			ObjectProvider<QuorumLockProperties> properties, ObjectProvider<DistributedLockRegistry> registry) {
		return new SchedulerLockValidator(
				() -> (provider.getIfUnique() instanceof QuorumLockProvider quorum) ? quorum : null,
				() -> NodeTimeouts.inForce(registry.getIfUnique(), properties.getObject()));
	}

}
