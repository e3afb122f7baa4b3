package io.quorumlock.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.LockRegistry;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.RegistryStatus;
import io.quorumlock.etcd.EtcdLockRegistry;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.shedlock.QuorumLockProvider;
import io.quorumlock.testing.EtcdCluster;
import io.quorumlock.testing.EtcdMembers;
import io.quorumlock.testing.InMemoryLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Etcd mode from {@code quorumlock.etcd.endpoints} on a real three-member cluster: the
 * registry it builds and what it takes from the properties, the start-up line, an
 * unreachable cluster (logged, not fatal, as a Redis master), and the start-up failures:
 * Redis masters listed beside it, lock-etcd missing, a malformed endpoint, a lease too
 * short for the request timeout, a password without a user.
 */
@EtcdCluster(members = 3)
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdModeAutoConfigurationIntegrationTests {

	static EtcdMembers etcd;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.REDIS, QuorumLockAutoConfiguration.class));

	private ApplicationContextRunner onEtcd() {
		// a loaded build machine: each request may take longer than the default 1 s
		return this.runner.withPropertyValues("quorumlock.etcd.endpoints=" + String.join(",", etcd.endpoints()),
				"quorumlock.etcd.request-timeout=2s");
	}

	@Test
	void etcdEndpointsSelectEtcdModeWithThePrefixAndDefaults() {
		onEtcd().withPropertyValues("quorumlock.key-prefix=app:", "quorumlock.lease=20s").run((context) -> {
			assertThat(context).hasSingleBean(EtcdLockRegistry.class).doesNotHaveBean(QuorumLockEngine.class);
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			try (Lease lease = registry.acquire(LockRequest.of("42").name("orders"))) {
				assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(20))
					.isGreaterThan(Duration.ofSeconds(15));
				assertThat(lease.fencingToken()).isPositive();
				List<RegistryStatus.HeldLease> held = context.getBean(RegistryStatus.class).leases();
				assertThat(held).singleElement()
					.satisfies((hold) -> assertThat(hold.keys()).containsExactly("app:orders:{42}"));
			}
		});
	}

	@Test
	void instancesAndTheAnnotationsDefaultsApplyOnEtcd() {
		onEtcd().withPropertyValues("quorumlock.instances.reports.lease=8s").run((context) -> {
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			try (Lease lease = registry.acquire(LockRequest.of("r").name("reports"))) {
				assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(8));
			}
		});
	}

	@Test
	void credentialsAreUsedAndThePasswordNeverLogged(CapturedOutput output) {
		// the cluster has no authentication: etcd ignores the credentials but the
		// client asks for a token first, so only the log is checked here
		onEtcd().withPropertyValues("quorumlock.etcd.username=app", "quorumlock.etcd.password=" + BadInput.PASSWORD)
			.run((context) -> {
				assertThat(context).hasSingleBean(EtcdLockRegistry.class);
				assertThat(context.getBean(QuorumLockProperties.class).getEtcd().toString())
					.doesNotContain(BadInput.PASSWORD);
			});
		assertThat(output).contains("user 'app'").doesNotContain(BadInput.PASSWORD);
	}

	@Test
	void theStartupLineNamesEtcdModeAndItsEndpoints(CapturedOutput output) {
		onEtcd().run((context) -> assertThat(context).hasNotFailed());
		String endpoints = String.join(", ",
				etcd.endpoints().stream().map((e) -> e.substring("http://".length())).toList());
		assertThat(output).contains("quorumlock: etcd mode on 3 endpoints [" + endpoints
				+ "] (quorumlock.etcd.endpoints), request-timeout 2s, key prefix 'lock:': each grant is decided by "
				+ "the etcd cluster's raft majority (2 of 3 listed members)");
	}

	@Test
	void anUnreachableClusterIsLoggedAndDoesNotStopTheStartup(CapturedOutput output) {
		String closed = "http://127.0.0.1:" + freePort();
		this.runner.withPropertyValues("quorumlock.etcd.endpoints=" + closed).run((context) -> {
			assertThat(context).hasNotFailed();
			RegistryStatus status = context.getBean(RegistryStatus.class);
			assertThat(status.quorumAvailable()).isFalse();
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(output)
					.contains("quorumlock: etcd member " + closed.substring(7) + " is not connected"));
		});
	}

	@Test
	void theRedisHealthCheckIsOffInEtcdMode() {
		new ApplicationContextRunner().withInitializer(new QuorumLockHealthDefaults())
			.withPropertyValues("quorumlock.etcd.endpoints=" + etcd.endpoints().get(0))
			.run((context) -> assertThat(context.getEnvironment().getProperty("management.health.redis.enabled"))
				.isEqualTo("false"));
	}

	@Test
	void anEtcdRegistryCustomizerRunsLast() {
		onEtcd().withPropertyValues("quorumlock.key-prefix=app:")
			.withBean(EtcdLockRegistryCustomizer.class, () -> (builder) -> builder.keyPrefix("custom:"))
			.run((context) -> {
				try (Lease lease = context.getBean(DistributedLockRegistry.class).acquire(LockRequest.of("k"))) {
					assertThat(context.getBean(RegistryStatus.class).leases()).singleElement()
						.satisfies((hold) -> assertThat(hold.keys()).containsExactly("custom:{k}"));
				}
			});
	}

	@Test
	void shedLockAndSpringIntegrationLockOnEtcd() {
		onEtcd()
			.withConfiguration(AutoConfigurations.of(QuorumLockShedLockAutoConfiguration.class,
					QuorumLockIntegrationAutoConfiguration.class))
			.run((context) -> {
				LockProvider provider = context.getBean(LockProvider.class);
				assertThat(provider).isInstanceOf(QuorumLockProvider.class);
				SimpleLock lock = provider
					.lock(new LockConfiguration(Instant.now(), "nightly", Duration.ofMinutes(1), Duration.ZERO))
					.orElseThrow();
				assertThat(context.getBean(RegistryStatus.class).leases()).singleElement()
					.satisfies((hold) -> assertThat(hold.keys()).containsExactly("lock:shedlock:{nightly}"));
				lock.unlock();
				Lock integration = context.getBean(LockRegistry.class).obtain("orders");
				assertThat(integration.tryLock()).isTrue();
				integration.unlock();
			});
	}

	@Test
	void anApplicationRegistryWins() {
		onEtcd().withUserConfiguration(OwnRegistry.class)
			.run((context) -> assertThat(context).doesNotHaveBean(EtcdLockRegistry.class));
	}

	@Test
	void redisMastersBesideEtcdStopTheStartup() {
		BadInput.assertRefused(BadInput.startup("both", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.etcd.endpoints=" + etcd.endpoints().get(0), "quorumlock.nodes=" + BadInput.CLOSED),
				"quorumlock.etcd.endpoints", "quorumlock.nodes", "either on etcd or on Redis"));
	}

	@Test
	void etcdModeWithoutLockEtcdStopsTheStartup() {
		this.runner.withClassLoader(new FilteredClassLoader(EtcdLockRegistry.class))
			.withPropertyValues("quorumlock.etcd.endpoints=" + etcd.endpoints().get(0))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(InvalidQuorumLockPropertyException.class)
					.hasMessageContaining("io.quorumlock:lock-etcd is not on the class path");
			});
	}

	@Test
	void aMalformedEndpointStopsTheStartup() {
		BadInput.assertRefused(BadInput.startup("malformed", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.etcd.endpoints=" + etcd.endpoints().get(0) + ",etcd-2:2379"),
				"quorumlock.etcd.endpoints[1]", "etcd-2:2379", "http://host:port"));
	}

	@Test
	void aLeaseTooShortForTheRequestTimeoutStopsTheStartup() {
		BadInput.assertRefused(BadInput.startup("short lease", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.etcd.endpoints=" + etcd.endpoints().get(0), "quorumlock.instances.jobs.lease=2s"),
				"quorumlock.etcd.request-timeout", "quorumlock.instances.jobs.lease"));
	}

	@Test
	void aPasswordWithoutAUserStopsTheStartup() {
		BadInput.assertRefused(BadInput.startup("password alone", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.etcd.endpoints=" + etcd.endpoints().get(0),
						"quorumlock.etcd.password=" + BadInput.PASSWORD),
				"quorumlock.etcd.username"));
	}

	@Test
	void aMisspeltEtcdPropertyIsNamedWithTheNearestValidName() {
		onEtcd().withPropertyValues("quorumlock.etcd.request-timout=2s").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new UnknownQuorumLockPropertyFailureAnalyzer(null)
				.analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("'quorumlock.etcd.request-timout'")
				.contains("quorumlock.etcd.request-timeout");
			assertThat(analysis.getAction()).contains("quorumlock.etcd.endpoints", "quorumlock.etcd.username");
		});
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRegistry {

		@Bean
		DistributedLockRegistry ownRegistry() {
			return new InMemoryLockRegistry();
		}

	}

}
