package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.jmx.JmxEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.jmx.ExposableJmxEndpoint;
import org.springframework.boot.actuate.endpoint.jmx.JmxEndpointsSupplier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jmx.JmxAutoConfiguration;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.support.ConfigurableConversionService;

import io.quorumlock.RegistryAdmin;
import io.quorumlock.RegistryStatus;
import io.quorumlock.actuate.LocksEndpoint;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LocksEndpointAutoConfiguration} next to Boot's endpoint auto-configuration, one
 * condition per test, without Redis: a recording registry stands in for the engine. The
 * operations are read from Boot's own endpoint discovery (over JMX, which needs no web
 * server; the web discovery applies the same access filter), so the access model
 * ({@code management.endpoint.locks.access}) is Boot's, not a copy of it.
 */
class LocksEndpointAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, JmxAutoConfiguration.class,
				JmxEndpointAutoConfiguration.class, LocksEndpointAutoConfiguration.class))
		.withUserConfiguration(RegistryConfiguration.class)
		.withPropertyValues("spring.jmx.enabled=true", "spring.jmx.unique-names=true")
		// as in an application: Boot's lenient conversion reads "unrestricted" as an
		// Access
		.withInitializer((context) -> context.getEnvironment()
			.setConversionService((ConfigurableConversionService) ApplicationConversionService.getSharedInstance()));

	@Test
	void runWhenEndpointNotExposedShouldNotRegisterEndpoint() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void runWhenEndpointExposedShouldOfferOnlyTheReadOperation() {
		this.runner.withPropertyValues("management.endpoints.jmx.exposure.include=locks")
			.run((context) -> assertThat(locksOperations(context)).containsExactly(OperationType.READ));
	}

	@Test
	void runWhenAccessUnrestrictedShouldOfferForceUnlock() {
		this.runner
			.withPropertyValues("management.endpoints.jmx.exposure.include=locks",
					"management.endpoint.locks.access=unrestricted")
			.run((context) -> assertThat(locksOperations(context)).containsExactlyInAnyOrder(OperationType.READ,
					OperationType.DELETE));
	}

	@Test
	void runWhenAccessUnrestrictedButCappedByMaxPermittedShouldNotOfferForceUnlock() {
		this.runner.withPropertyValues("management.endpoints.jmx.exposure.include=locks",
				"management.endpoint.locks.access=unrestricted", "management.endpoints.access.max-permitted=read-only")
			.run((context) -> assertThat(locksOperations(context)).containsExactly(OperationType.READ));
	}

	@Test
	void runWhenDeprecatedForceUnlockPropertySetButAccessReadOnlyShouldNotOfferForceUnlockAndWarn() {
		List<String> warnings = warnings(() -> this.runner
			.withPropertyValues("management.endpoints.jmx.exposure.include=locks",
					"quorumlock.actuator.force-unlock-enabled=true")
			.run((context) -> assertThat(locksOperations(context)).containsExactly(OperationType.READ)));
		assertThat(warnings).singleElement()
			.asString()
			.contains("quorumlock.actuator.force-unlock-enabled is deprecated and has no effect")
			.contains("management.endpoint.locks.access=unrestricted");
	}

	@Test
	void runWithoutTheDeprecatedPropertyShouldNotWarn() {
		List<String> warnings = warnings(
				() -> this.runner.withPropertyValues("management.endpoints.jmx.exposure.include=locks")
					.run((context) -> assertThat(context).hasSingleBean(LocksEndpoint.class)));
		assertThat(warnings).isEmpty();
	}

	@Test
	void runWhenAccessNoneShouldNotRegisterEndpoint() {
		this.runner
			.withPropertyValues("management.endpoints.jmx.exposure.include=locks",
					"management.endpoint.locks.access=none")
			.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void runWhenQuorumLockDisabledShouldNotRegisterEndpoint() {
		this.runner
			.withPropertyValues("management.endpoints.jmx.exposure.include=locks",
					"management.endpoint.locks.access=unrestricted", "quorumlock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void runWhenUserDefinesEndpointShouldBackOff() {
		this.runner.withPropertyValues("management.endpoints.jmx.exposure.include=locks")
			.withUserConfiguration(UserEndpointConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(LocksEndpoint.class).hasBean("myLocksEndpoint"));
	}

	/** The warnings the auto-configuration logs while {@code action} runs. */
	private static List<String> warnings(Runnable action) {
		Logger logger = Logger.getLogger(LocksEndpointAutoConfiguration.class.getName());
		List<String> warnings = new CopyOnWriteArrayList<>();
		Handler capture = new Handler() {

			@Override
			public void publish(LogRecord record) {
				if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
					warnings.add(record.getMessage());
				}
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}

		};
		logger.addHandler(capture);
		try {
			action.run();
		}
		finally {
			logger.removeHandler(capture);
		}
		return warnings;
	}

	private static Set<OperationType> locksOperations(AssertableApplicationContext context) {
		assertThat(context).hasSingleBean(LocksEndpoint.class);
		ExposableJmxEndpoint locks = context.getBean(JmxEndpointsSupplier.class)
			.getEndpoints()
			.stream()
			.filter((endpoint) -> endpoint.getEndpointId().toString().equals("locks"))
			.findFirst()
			.orElseThrow();
		return locks.getOperations().stream().map((operation) -> operation.getType()).collect(Collectors.toSet());
	}

	@Configuration(proxyBeanMethods = false)
	static class RegistryConfiguration {

		@Bean
		RecordingRegistry registry() {
			return new RecordingRegistry();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserEndpointConfiguration {

		@Bean
		LocksEndpoint myLocksEndpoint(RecordingRegistry registry) {
			return new LocksEndpoint(registry, registry);
		}

	}

	/** A registry with one node and no leases that records the keys forced open. */
	static class RecordingRegistry implements RegistryStatus, RegistryAdmin {

		final List<String> forced = new CopyOnWriteArrayList<>();

		@Override
		public String mode() {
			return "single";
		}

		@Override
		public int quorum() {
			return 1;
		}

		@Override
		public List<Node> nodes() {
			return List
				.of(new Node("127.0.0.1:6390", true, Duration.ofMillis(1), Duration.ofSeconds(5), true, Duration.ZERO));
		}

		@Override
		public List<HeldLease> leases() {
			return List.of();
		}

		@Override
		public int forceUnlock(String redisKey) {
			this.forced.add(redisKey);
			return 1;
		}

		@Override
		public List<String> keysWithoutTtl(int limit) {
			return List.of();
		}

	}

}
