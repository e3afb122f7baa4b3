package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.actuate.LockMetrics;
import io.quorumlock.actuate.LocksEndpoint;
import io.quorumlock.actuate.ObservedLockRegistry;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The observability auto-configurations ({@link QuorumLockMetricsAutoConfiguration},
 * {@link QuorumLockObservationAutoConfiguration}, {@link LocksEndpointAutoConfiguration},
 * {@link DistributedLockHealthContributorAutoConfiguration}) next to Boot's actuator
 * auto-configuration, one condition per test, on real servers: quorum mode on three
 * masters unless a test says otherwise.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ObservabilityAutoConfigurationIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private static final AutoConfigurations QUORUMLOCK = AutoConfigurations.of(BootLine.REDIS,
			QuorumLockAutoConfiguration.class, QuorumLockMetricsAutoConfiguration.class,
			QuorumLockObservationAutoConfiguration.class, LocksEndpointAutoConfiguration.class,
			DistributedLockHealthContributorAutoConfiguration.class);

	private static final AutoConfigurations METRICS = AutoConfigurations.of(BootLine.METRICS,
			BootLine.SIMPLE_METRICS_EXPORT, BootLine.COMPOSITE_METER_REGISTRY);

	private static final AutoConfigurations ACTUATOR = AutoConfigurations.of(EndpointAutoConfiguration.class,
			BootLine.HEALTH_CONTRIBUTORS, BootLine.HEALTH_ENDPOINT);

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(QUORUMLOCK)
		.withConfiguration(ACTUATOR)
		.withPropertyValues("quorumlock.rejoin-delay=0s", "quorumlock.node-timeout=1s",
				"quorumlock.nodes=" + String.join(",", redis.uris()));

	private final String key = "secret-order-" + UUID.randomUUID();

	@Test
	void runWhenMeterRegistryPresentShouldRecordLockMeters() {
		this.runner.withConfiguration(METRICS).run((context) -> {
			assertThat(context).hasSingleBean(LockMetrics.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			try (Lease lease = context.getBean(DistributedLockRegistry.class).acquire(request().name("orders"))) {
				assertThat(meters.get("distributed.lock.active").gauge().value()).isOne();
			}
			assertThat(
					meters.get("distributed.lock.wait").tags("lock", "orders", "outcome", "acquired").timer().count())
				.isOne();
			assertThat(meters.get("distributed.lock.held").tag("lock", "orders").timer().count()).isOne();
			assertThat(meters.get("distributed.lock.active").gauge().value()).isZero();
			assertNoTagCarriesTheKey(meters);
		});
	}

	@Test
	void runWithoutMeterRegistryShouldNotRegisterMeters() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(QuorumLockEngine.class)
				.doesNotHaveBean(MeterRegistry.class)
				.doesNotHaveBean(LockMetrics.class);
		});
	}

	@Test
	void runWhenMetricsDisabledShouldNotRegisterMeters() {
		this.runner.withConfiguration(METRICS).withPropertyValues("quorumlock.metrics.enabled=false").run((context) -> {
			assertThat(context).hasSingleBean(MeterRegistry.class).doesNotHaveBean(LockMetrics.class);
			context.getBean(DistributedLockRegistry.class).acquire(request().name("orders")).release();
			assertThat(context.getBean(MeterRegistry.class).find("distributed.lock.wait").meters()).isEmpty();
			assertThat(context.getBean(MeterRegistry.class).find("distributed.lock.active").meters()).isEmpty();
		});
	}

	@Test
	void runWhenUserDefinesLockMetricsShouldFeedThatOne() {
		SimpleMeterRegistry own = new SimpleMeterRegistry();
		this.runner.withConfiguration(METRICS)
			.withBean("ownLockMetrics", LockMetrics.class, () -> new LockMetrics(own))
			.run((context) -> {
				assertThat(context).hasSingleBean(LockMetrics.class).hasBean("ownLockMetrics");
				context.getBean(DistributedLockRegistry.class).acquire(request()).release();
				assertThat(own.get("distributed.lock.wait").tag("outcome", "acquired").timer().count()).isOne();
			});
	}

	@Test
	void runWhenObservationRegistryPresentShouldObserveAcquisitionThroughTheAspect() {
		this.runner.withConfiguration(METRICS)
			.withConfiguration(AutoConfigurations.of(BootLine.OBSERVATION))
			.withUserConfiguration(OrdersConfiguration.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(ObservedLockRegistry.class).hasSingleBean(QuorumLockEngine.class);
				assertThat(context.getBean(DistributedLockRegistry.class)).isInstanceOf(ObservedLockRegistry.class);
				assertThat(context.getBean(Orders.class).pay(this.key)).isEqualTo("paid");
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				// DefaultMeterObservationHandler turns the observation into a timer
				assertThat(meters.get(ObservedLockRegistry.NAME)
					.tags("lock", "payments", "outcome", "acquired")
					.timer()
					.count()).isOne();
				assertNoTagCarriesTheKey(meters);
			});
	}

	@Test
	void runWhenObservationDisabledByPropertyShouldNotObserveAcquisition() {
		this.runner.withConfiguration(METRICS)
			.withConfiguration(AutoConfigurations.of(BootLine.OBSERVATION))
			.withPropertyValues("management.observations.enable.distributed.lock=false")
			.run((context) -> {
				context.getBean(DistributedLockRegistry.class).acquire(request().name("orders")).release();
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.find(ObservedLockRegistry.NAME).meters()).isEmpty();
				assertThat(meters.get("distributed.lock.wait")
					.tags("lock", "orders", "outcome", "acquired")
					.timer()
					.count()).as("the meters do not depend on the observation").isOne();
			});
	}

	@Test
	void runWithoutObservationRegistryShouldUseTheEngineDirectly() {
		this.runner.withConfiguration(METRICS).run((context) -> {
			assertThat(context).doesNotHaveBean(ObservedLockRegistry.class);
			assertThat(context.getBean(DistributedLockRegistry.class)).isInstanceOf(QuorumLockEngine.class);
		});
	}

	@Test
	void runWhenEndpointExposedShouldRegisterReadOnlyEndpointByDefault() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=locks").run((context) -> {
			assertThat(context).hasSingleBean(LocksEndpoint.class);
			try (Lease lease = context.getBean(DistributedLockRegistry.class).acquire(request().name("orders"))) {
				LocksEndpoint.LocksDescriptor locks = context.getBean(LocksEndpoint.class).locks(null);
				assertThat(locks.mode()).isEqualTo("quorum");
				assertThat(locks.nodes()).hasSize(3);
				assertThat(locks.leases()).singleElement()
					.satisfies((held) -> assertThat(held.keys()).containsExactly("lock:orders:{" + this.key + "}"));
			}
		});
	}

	@Test
	void runWhenEndpointAccessUnrestrictedShouldForceALockOpenOnEveryNode() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=locks",
					"management.endpoint.locks.access=UNRESTRICTED")
			.run((context) -> {
				assertThat(context).hasSingleBean(LocksEndpoint.class);
				String redisKey = "lock:orders:{" + this.key + "}";
				Lease lease = context.getBean(DistributedLockRegistry.class)
					.acquire(request().name("orders").renew(false));
				LocksEndpoint.ForceUnlockDescriptor result = context.getBean(LocksEndpoint.class)
					.forceUnlock(SecurityContext.NONE, redisKey.split("/"));
				assertThat(result.deletedOnNodes()).isEqualTo(3);
				for (int i = 0; i < 3; i++) {
					assertThat(redis.node(i).exists(redisKey)).isFalse();
				}
				lease.releaseAsync();
			});
	}

	@Test
	void runWhenHealthIndicatorDisabledShouldNotRegisterIt() {
		this.runner.withPropertyValues("management.health.distributedLock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("distributedLockHealthContributor"));
	}

	@Test
	void runWhenHealthDefaultsDisabledShouldNotRegisterIt() {
		this.runner.withPropertyValues("management.health.defaults.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("distributedLockHealthContributor"));
	}

	@Test
	void runWhenQuorumLockDisabledShouldBackOffEverything() {
		this.runner.withConfiguration(METRICS)
			.withConfiguration(AutoConfigurations.of(BootLine.OBSERVATION))
			.withPropertyValues("quorumlock.enabled=false", "management.endpoints.web.exposure.include=locks",
					"management.endpoint.locks.access=UNRESTRICTED")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(DistributedLockRegistry.class)
				.doesNotHaveBean(LockMetrics.class)
				.doesNotHaveBean(LocksEndpoint.class)
				.doesNotHaveBean("distributedLockHealthContributor"));
	}

	@Test
	void runWithoutActuatorOrMicrometerOnTheClasspathShouldStillStart() {
		new ApplicationContextRunner().withConfiguration(QUORUMLOCK)
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate",
					"org.springframework.boot.health", "io.micrometer"))
			.withPropertyValues("quorumlock.rejoin-delay=0s", "quorumlock.node-timeout=1s",
					"quorumlock.nodes=" + String.join(",", redis.uris()))
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.hasSingleBean(QuorumLockEngine.class)
					.doesNotHaveBean("lockMetrics")
					.doesNotHaveBean("observedLockRegistry")
					.doesNotHaveBean("locksEndpoint")
					.doesNotHaveBean("distributedLockHealthContributor");
				assertThat(context.getBean(QuorumLockEngine.class).nodes()).hasSize(3);
			});
	}

	/**
	 * A request that waits for contention. These tests are about wiring, not timing, so
	 * the runners also give each node a generous 1 s to answer: a busy machine must not
	 * turn a grant into a quorum failure, which the engine reports at once.
	 */
	private LockRequest request() {
		return LockRequest.of(this.key).waitAtMost(Duration.ofSeconds(10));
	}

	private void assertNoTagCarriesTheKey(MeterRegistry meters) {
		for (Meter meter : meters.getMeters()) {
			for (Tag tag : meter.getId().getTags()) {
				assertThat(tag.getValue()).as(meter.getId().toString()).doesNotContain(this.key);
			}
		}
	}

	/** A service with an annotated method. */
	static class Orders {

		@DistributedLock(key = "#id", name = "payments", waitAtMost = "10s")
		public String pay(String id) {
			return "paid";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OrdersConfiguration {

		@Bean
		Orders orders() {
			return new Orders();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserEndpointConfiguration {

		@Bean
		LocksEndpoint myLocksEndpoint(QuorumLockEngine engine) {
			return new LocksEndpoint(engine, engine);
		}

	}

}
