package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.InMemoryLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The in-memory registry of a Spring test, built with
 * {@link InMemoryLockRegistry#of(Environment)}, applies {@code quorumlock.*} and
 * {@code quorumlock.instances.<name>.*}: a locked bean waits, leases and holds as it does
 * on the Redis engine. Without it, the built-in defaults apply (no wait).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InMemoryRegistryPropertiesTests {

	@Test
	void instanceLeaseAndWaitApplyToAnnotatedMethods() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
			.withUserConfiguration(InMemoryLocks.class)
			.withBean(PaymentService.class)
			.withPropertyValues("quorumlock.instances.orders.lease=2s", "quorumlock.instances.orders.wait-at-most=10s")
			.run((context) -> {
				PaymentService payments = context.getBean(PaymentService.class);
				assertThat(payments.pay("42")).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2));
				InMemoryLockRegistry otherInstance = context.getBean(InMemoryLockRegistry.class).peer();
				Lease held = otherInstance.acquire(LockRequest.of("42").name("orders"));
				CompletableFuture<Duration> waiting = CompletableFuture.supplyAsync(() -> payments.pay("42"));
				// waits for the other instance (wait-at-most 10s) instead of failing at
				// once
				await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> !waiting.isDone());
				held.release();
				assertThat(waiting.get(10, TimeUnit.SECONDS)).isPositive();
				otherInstance.close();
			});
	}

	@Test
	void globalHoldAtLeastKeepsTheLockAfterTheMethod() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
			.withUserConfiguration(InMemoryLocks.class)
			.withBean(PaymentService.class)
			.withPropertyValues("quorumlock.hold-at-least=20s")
			.run((context) -> {
				context.getBean(PaymentService.class).pay("7");
				InMemoryLockRegistry otherInstance = context.getBean(InMemoryLockRegistry.class).peer();
				assertThat(otherInstance.tryAcquire(LockRequest.of("7").name("orders"))).isEmpty();
				otherInstance.close();
			});
	}

	@Test
	void withoutTheEnvironmentTheBuiltInDefaultsApply() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
			.withBean("distributedLockRegistry", InMemoryLockRegistry.class, InMemoryLockRegistry::new)
			.withBean(PaymentService.class)
			.withPropertyValues("quorumlock.instances.orders.wait-at-most=10s")
			.run((context) -> {
				InMemoryLockRegistry otherInstance = context.getBean(InMemoryLockRegistry.class).peer();
				try (Lease held = otherInstance.acquire(LockRequest.of("42").name("orders"))) {
					assertThatExceptionOfType(LockNotAcquiredException.class)
						.isThrownBy(() -> context.getBean(PaymentService.class).pay("42"))
						.withMessageContaining("waited at most 0 ms");
				}
				otherInstance.close();
			});
	}

	/** As the testing page declares it. */
	@Configuration(proxyBeanMethods = false)
	static class InMemoryLocks {

		@Bean
		InMemoryLockRegistry distributedLockRegistry(Environment environment) {
			return InMemoryLockRegistry.of(environment);
		}

	}

	static class PaymentService {

		@DistributedLock(name = "orders", key = "#id")
		public Duration pay(String id) {
			return CurrentLease.require().remaining();
		}

	}

}
