package io.quorumlock.autoconfigure;

import java.lang.System.Logger.Level;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import io.quorumlock.RegistryAdmin;
import io.quorumlock.RegistryStatus;
import io.quorumlock.actuate.LocksEndpoint;
import io.quorumlock.actuate.RecentLockFailures;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the {@code locks} actuator endpoint, when it is available
 * (access not {@code none}, and exposed). Its force-unlock {@code DELETE} operation is
 * governed by Boot's endpoint access model alone: read-only by default,
 * {@code management.endpoint.locks.access=unrestricted} to offer it. The actuator
 * conditions sit on the nested class, behind the class check, so that an application
 * without actuator never loads them. With the endpoint comes a {@link RecentLockFailures}
 * listener, so that the endpoint shows the last failure of each lock with its full
 * message (an API client gets only its category). A registry without operator actions
 * ({@link RegistryAdmin}; the Redis engine and the etcd registry have them) gets the read
 * operation only: force-unlock and the leak scan answer that it offers none.
 */
@AutoConfiguration(after = QuorumLockAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBooleanProperty(name = "quorumlock.enabled", matchIfMissing = true)
public class LocksEndpointAutoConfiguration {

	/** The property the endpoint's access replaced; read only to warn about it. */
	static final String FORCE_UNLOCK_ENABLED = "quorumlock.actuator.force-unlock-enabled";

	private static final System.Logger log = System.getLogger(LocksEndpointAutoConfiguration.class.getName());

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(RegistryStatus.class)
	@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RecentLockFailures quorumLockRecentFailures() {
			return new RecentLockFailures();
		}

		@Bean
		@ConditionalOnMissingBean
		LocksEndpoint locksEndpoint(RegistryStatus status, ObjectProvider<RegistryAdmin> admin, Environment environment,
				ObjectProvider<RecentLockFailures> failures) {
			if (Binder.get(environment).bind(FORCE_UNLOCK_ENABLED, Boolean.class).isBound()) {
				// no longer a gate: say so, rather than leave an operator wondering
				log.log(Level.WARNING, FORCE_UNLOCK_ENABLED + " is deprecated and has no effect: force-unlock is "
						+ "offered when management.endpoint.locks.access=unrestricted (read-only by default)");
			}
			return new LocksEndpoint(status, admin.getIfUnique(), failures.getIfUnique());
		}

	}

}
