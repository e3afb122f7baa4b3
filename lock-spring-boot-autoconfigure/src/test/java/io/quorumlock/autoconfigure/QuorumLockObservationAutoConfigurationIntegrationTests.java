package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockRequest;
import io.quorumlock.actuate.ObservedLockRegistry;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.RedisServers;

import static io.quorumlock.autoconfigure.ObservabilityContexts.METRICS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link QuorumLockObservationAutoConfiguration} next to Boot's observation
 * auto-configuration, one condition per test, on three real masters.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuorumLockObservationAutoConfigurationIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final ApplicationContextRunner runner = ObservabilityContexts.runner(redis);

	private final String key = "secret-order-" + UUID.randomUUID();

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
	void theObservedRegistryAnswersWhoHoldsAKeyAsTheEngineDoes() {
		this.runner.withConfiguration(METRICS)
			.withConfiguration(AutoConfigurations.of(BootLine.OBSERVATION))
			.run((context) -> {
				DistributedLockRegistry locks = context.getBean(DistributedLockRegistry.class);
				assertThat(locks).isInstanceOf(ObservedLockRegistry.class);
				LockRequest request = request().name("orders");
				assertThat(locks.isLocked(request)).isFalse();
				try (io.quorumlock.Lease lease = locks.acquire(request)) {
					assertThat(locks.isLocked(request)).isTrue();
					assertThat(locks.isLockedAsync(request)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
					assertThat(locks.isHeldByThisInstance(request)).isTrue();
					assertThat(locks.isHeldByCurrentThread(request)).as("a lease of acquire() belongs to no thread")
						.isFalse();
				}
				assertThat(locks.execute(request, () -> locks.isHeldByCurrentThread(request))).isTrue();
			});
	}

	@Test
	void theObservedRegistryOverridesEveryDefaultMethodOfTheRegistry() {
		// a default it inherits would answer for the wrapper, not for the engine it wraps
		for (java.lang.reflect.Method method : DistributedLockRegistry.class.getMethods()) {
			if (method.isDefault()) {
				assertThat(method.getName() + " overridden").satisfies((what) -> assertThat(
						ObservedLockRegistry.class.getMethod(method.getName(), method.getParameterTypes())
							.getDeclaringClass())
					.as(what)
					.isEqualTo(ObservedLockRegistry.class));
			}
		}
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

	private void assertNoTagCarriesTheKey(MeterRegistry meters) {
		for (Meter meter : meters.getMeters()) {
			for (Tag tag : meter.getId().getTags()) {
				assertThat(tag.getValue()).as(meter.getId().toString()).doesNotContain(this.key);
			}
		}
	}

	/**
	 * A request that waits for contention. These tests are about wiring, not timing, so
	 * the runners also give each node a generous 1 s to answer: a busy machine must not
	 * turn a grant into a quorum failure, which the engine reports at once.
	 */
	private LockRequest request() {
		return LockRequest.of(this.key).waitAtMost(Duration.ofSeconds(10));
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

}
