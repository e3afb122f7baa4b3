package io.quorumlock.autoconfigure;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.RegistryStatus;
import io.quorumlock.actuate.ObservedLockRegistry;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of a Micrometer {@link io.micrometer.observation.Observation}
 * around lock acquisition, when the application has an {@link ObservationRegistry}.
 * <p>
 * The observation wraps the registry rather than listening to it: a listener hears of a
 * grant only after the wait, too late to open a span that covers it. So this registers an
 * {@link ObservedLockRegistry} over the registry (the Redis engine or the etcd registry,
 * the bean that is also its {@link RegistryStatus}) as the {@link Primary @Primary}
 * {@link DistributedLockRegistry}: the {@code @DistributedLock} aspect and every
 * application bean that injects a {@code DistributedLockRegistry} get the observed one,
 * with no change to their code, while the registry stays a bean of its own type for the
 * status, the endpoint and the health indicator. It runs after Boot's observation
 * auto-configuration of either line (Boot 3's actuator, Boot 4's
 * {@code spring-boot-micrometer-observation}). An application that defines its own
 * registry is left alone. Key values are low-cardinality only: the lock's label and the
 * outcome, never an evaluated key. Boot's
 * {@code management.observations.enable.distributed.lock=false} turns the observation
 * off.
 */
@AutoConfiguration(after = QuorumLockAutoConfiguration.class,
		afterName = { "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
				"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "quorumlock.enabled", matchIfMissing = true)
@ConditionalOnBean({ ObservationRegistry.class, RegistryStatus.class })
public class QuorumLockObservationAutoConfiguration {

	@Bean
	@Primary
	@ConditionalOnMissingBean
	ObservedLockRegistry observedLockRegistry(RegistryStatus registry, ObservationRegistry observationRegistry) {
		if (!(registry instanceof DistributedLockRegistry locks)) {
			throw new IllegalStateException(
					"The RegistryStatus bean " + registry + " is not a DistributedLockRegistry: "
							+ "define an ObservedLockRegistry bean over the application's registry");
		}
		return new ObservedLockRegistry(locks, observationRegistry);
	}

}
