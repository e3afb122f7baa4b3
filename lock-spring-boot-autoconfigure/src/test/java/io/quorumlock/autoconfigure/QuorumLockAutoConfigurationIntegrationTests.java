package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link QuorumLockAutoConfiguration} locking on real servers: single mode on the
 * application's {@code spring.data.redis} server, quorum mode on three masters, option
 * precedence, lease-loss events and shutdown.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuorumLockAutoConfigurationIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.REDIS, QuorumLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.node(1).port(),
				"spring.data.redis.client-name=quorumlock-it", "quorumlock.rejoin-delay=0s", BoundedWait.NODE_TIMEOUT);

	@Test
	void singleModeLocksOnTheSpringDataRedisServer() {
		this.runner.run((context) -> {
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			try (Lease lease = registry.acquire(LockRequest.of("42").name("orders"))) {
				assertThat(lease.isValid()).isTrue();
				assertThat(redis.node(1).exists("lock:orders:{42}")).isTrue();
				assertThat(redis.node(0).exists("lock:orders:{42}")).isFalse();
				assertThat((String) redis.node(1).call("CLIENT", "LIST")).contains("name=quorumlock-it");
			}
			assertThat(redis.node(1).exists("lock:orders:{42}")).isFalse();
		});
	}

	@Test
	void quorumModeLocksOnEveryListedMaster() {
		this.runner.withPropertyValues("quorumlock.nodes=" + String.join(",", redis.uris())).run((context) -> {
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			try (Lease lease = registry.acquire(LockRequest.of("7"))) {
				assertThat(lease.isValid()).isTrue();
				// granted once a quorum said OK; the last master's answer follows within
				// the node timeout
				for (int i = 0; i < 3; i++) {
					RedisServer node = redis.node(i);
					await().atMost(Duration.ofSeconds(5)).until(() -> node.exists("lock:{7}"));
				}
			}
		});
	}

	@Test
	void customizerAndKeyPrefixApply() {
		this.runner.withPropertyValues("quorumlock.key-prefix=app:")
			.withBean(QuorumLockEngineCustomizer.class, () -> (builder) -> builder.keyPrefix("custom:"))
			.run((context) -> {
				try (Lease lease = context.getBean(DistributedLockRegistry.class).acquire(LockRequest.of("k"))) {
					assertThat(redis.node(1).exists("custom:{k}")).isTrue();
					assertThat(redis.node(1).exists("app:{k}")).isFalse();
				}
			});
	}

	@Test
	void annotationWinsOverInstanceWhichWinsOverGlobal() {
		this.runner
			.withPropertyValues("quorumlock.lease=40s", "quorumlock.instances.orders.lease=20s",
					"quorumlock.instances.orders.wait-at-most=1s")
			.withUserConfiguration(PrecedenceConfiguration.class)
			.run((context) -> {
				Precedence service = context.getBean(Precedence.class);
				assertThat(service.global()).isGreaterThan(Duration.ofSeconds(35));
				assertThat(service.instance()).isGreaterThan(Duration.ofSeconds(15))
					.isLessThanOrEqualTo(Duration.ofSeconds(20));
				assertThat(service.annotation()).isGreaterThan(Duration.ofSeconds(5))
					.isLessThanOrEqualTo(Duration.ofSeconds(10));
			});
	}

	@Test
	void leaseLostEventIsPublishedWhenTheLossIsDetected() {
		this.runner.withUserConfiguration(LostEventsConfiguration.class).run((context) -> {
			LostEvents events = context.getBean(LostEvents.class);
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			Lease lease = registry
				.acquire(LockRequest.of("short").name("reports").lease(Duration.ofSeconds(2)).renew(false));
			await().atMost(Duration.ofSeconds(10)).until(() -> !events.received.isEmpty());
			LeaseLostEvent event = events.received.get(0);
			assertThat(event.getLabel()).isEqualTo("reports");
			assertThat(event.getKeys()).containsExactly("short");
			assertThat(event.getLease()).isSameAs(lease);
			assertThat(event.getException()).hasMessageContaining("reports");
			assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::release);
		});
	}

	@Test
	void onLeaseLostLogReleasesWithoutThrowing() {
		this.runner.withPropertyValues("quorumlock.on-lease-lost=log")
			.withUserConfiguration(LostEventsConfiguration.class)
			.run((context) -> {
				LostEvents events = context.getBean(LostEvents.class);
				Lease lease = context.getBean(DistributedLockRegistry.class)
					.acquire(LockRequest.of("quiet").lease(Duration.ofSeconds(2)).renew(false));
				await().atMost(Duration.ofSeconds(10)).until(() -> !events.received.isEmpty());
				lease.release();
				assertThat(lease.isValid()).isFalse();
			});
	}

	@Test
	void engineClosesWithTheContext() {
		ConfigurableApplicationContext[] started = new ConfigurableApplicationContext[1];
		this.runner.run((context) -> {
			context.getBean(DistributedLockRegistry.class).acquire(LockRequest.of("c")).release();
			assertThat((String) redis.node(1).call("CLIENT", "LIST")).contains("name=quorumlock-it");
			started[0] = context.getSourceApplicationContext();
		});
		assertThat(started[0].isActive()).isFalse();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !((String) redis.node(1).call("CLIENT", "LIST")).contains("name=quorumlock-it"));
	}

	@Configuration(proxyBeanMethods = false)
	static class PrecedenceConfiguration {

		@Bean
		Precedence precedence() {
			return new Precedence();
		}

	}

	static class Precedence {

		@DistributedLock(key = "'g'")
		Duration global() {
			return CurrentLease.get().orElseThrow().remaining();
		}

		@DistributedLock(key = "'i'", name = "orders")
		Duration instance() {
			return CurrentLease.get().orElseThrow().remaining();
		}

		@DistributedLock(key = "'a'", name = "orders", lease = "10s")
		Duration annotation() {
			return CurrentLease.get().orElseThrow().remaining();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LostEventsConfiguration {

		@Bean
		LostEvents lostEvents() {
			return new LostEvents();
		}

	}

	static class LostEvents implements ApplicationListener<LeaseLostEvent> {

		final List<LeaseLostEvent> received = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(LeaseLostEvent event) {
			this.received.add(event);
		}

	}

}
