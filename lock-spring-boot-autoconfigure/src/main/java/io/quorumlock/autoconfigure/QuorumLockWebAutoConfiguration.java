package io.quorumlock.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

import io.quorumlock.RegistryStatus;
import io.quorumlock.web.LockProblemDetails;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the default HTTP answers for lock failures
 * ({@link LockProblemDetails}) in a Spring MVC or WebFlux application: a detail for the
 * caller that names no master unless {@code quorumlock.problem-details.verbose=true}, and
 * the whole story in the server's log. The application's own exception handlers win; a
 * {@link LockProblemDetails} bean replaces these.
 */
@AutoConfiguration(after = QuorumLockAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
@ConditionalOnWebApplication
@ConditionalOnProperty(prefix = "quorumlock", name = "enabled", matchIfMissing = true)
public class QuorumLockWebAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockProblemDetails quorumLockProblemDetails(ObjectProvider<RegistryStatus> status,
			ObjectProvider<QuorumLockProperties> properties) {
		QuorumLockProperties settings = properties.getIfAvailable();
		return new LockProblemDetails(status.getIfUnique(),
				settings != null && settings.getProblemDetails().isVerbose());
	}

}
