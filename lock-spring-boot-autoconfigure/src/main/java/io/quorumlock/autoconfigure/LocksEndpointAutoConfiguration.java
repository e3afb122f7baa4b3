package io.quorumlock.autoconfigure;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.RegistryAdmin;
import io.quorumlock.RegistryStatus;
import io.quorumlock.actuate.LocksEndpoint;
import io.quorumlock.actuate.LocksWriteEndpoint;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the {@code locks} actuator endpoint, when it is available
 * (enabled and exposed): read-only by default, and with the force-unlock {@code DELETE}
 * operation ({@link LocksWriteEndpoint}) only when
 * {@code quorumlock.actuator.force-unlock-enabled=true}. The two variants are exclusive,
 * so exactly one bean carries the endpoint id. The actuator conditions sit on the nested
 * classes, behind the class check, so that an application without actuator never loads
 * them.
 */
@AutoConfiguration(after = QuorumLockAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBooleanProperty(name = "quorumlock.enabled", matchIfMissing = true)
public class LocksEndpointAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean({ RegistryStatus.class, RegistryAdmin.class })
	@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
	@ConditionalOnBooleanProperty(name = "quorumlock.actuator.force-unlock-enabled", havingValue = false,
			matchIfMissing = true)
	static class ReadOnlyConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LocksEndpoint locksEndpoint(RegistryStatus status, RegistryAdmin admin) {
			return new LocksEndpoint(status, admin);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean({ RegistryStatus.class, RegistryAdmin.class })
	@ConditionalOnAvailableEndpoint(LocksWriteEndpoint.class)
	@ConditionalOnBooleanProperty(name = "quorumlock.actuator.force-unlock-enabled")
	static class ForceUnlockConfiguration {

		@Bean
		@ConditionalOnMissingBean(LocksEndpoint.class)
		LocksWriteEndpoint locksEndpoint(RegistryStatus status, RegistryAdmin admin) {
			return new LocksWriteEndpoint(status, admin);
		}

	}

}
