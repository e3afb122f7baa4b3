package io.quorumlock.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;
import io.quorumlock.aop.DistributedLockAdvisor;
import io.quorumlock.aop.DistributedLockMethodValidator;
import io.quorumlock.redis.OnLeaseLost;
import io.quorumlock.redis.QuorumLockEngine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link QuorumLockAutoConfiguration}, one condition per test. No Redis runs here: the
 * nodes are closed loopback ports (an unreachable node is not a start-up error), so these
 * tests are about wiring; {@code QuorumLockAutoConfigurationIntegrationTests} locks on
 * real servers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuorumLockAutoConfigurationTests {

	private static final int PORT_A = closedPort();

	private static final int PORT_B = closedPort();

	private static final int PORT_C = closedPort();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.REDIS, QuorumLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.rejoin-delay=0s");

	@Test
	void runWhenNoNodesShouldUseSingleModeOnSpringDataRedis() {
		this.runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + PORT_A)
			.run((context) -> {
				QuorumLockEngine engine = context.getBean(QuorumLockEngine.class);
				assertThat(engine.nodeAddresses()).containsExactly("127.0.0.1:" + PORT_A);
				assertThat(engine.quorum()).isOne();
				assertThat(context).hasSingleBean(DistributedLockRegistry.class);
			});
	}

	@Test
	void runWhenNoNodesShouldShareSpringDataRedisClientResources() {
		this.runner.withPropertyValues("spring.data.redis.port=" + PORT_A).run((context) -> {
			String[] engines = context.getBeanNamesForType(QuorumLockEngine.class);
			assertThat(engines).hasSize(1);
			assertThat(context.getBeanFactory().getDependenciesForBean(engines[0])).contains("lettuceClientResources");
		});
	}

	@Test
	void runWhenNodesSetShouldUseQuorumMode() {
		this.runner
			.withPropertyValues("spring.data.redis.port=" + PORT_A,
					"quorumlock.nodes=redis://127.0.0.1:" + PORT_A + ",redis://127.0.0.1:" + PORT_B
							+ ",redis://127.0.0.1:" + PORT_C)
			.run((context) -> {
				QuorumLockEngine engine = context.getBean(QuorumLockEngine.class);
				assertThat(engine.nodeAddresses()).containsExactly("127.0.0.1:" + PORT_A, "127.0.0.1:" + PORT_B,
						"127.0.0.1:" + PORT_C);
				assertThat(engine.quorum()).isEqualTo(2);
			});
	}

	@Test
	void runWhenNodesGivenAsObjectsShouldBindUriUsernameAndPassword() {
		this.runner.withPropertyValues("quorumlock.nodes[0]=redis://127.0.0.1:" + PORT_A,
				"quorumlock.nodes[1].uri=redis://127.0.0.1:" + PORT_B, "quorumlock.nodes[1].username=app",
				"quorumlock.nodes[1].password=s3cret", "quorumlock.nodes[2].uri=rediss://127.0.0.1:" + PORT_C + "/2")
			.run((context) -> {
				QuorumLockProperties properties = context.getBean(QuorumLockProperties.class);
				assertThat(properties.getNodes()).extracting(NodeProperties::getUsername)
					.containsExactly(null, "app", null);
				assertThat(properties.getNodes().get(1).toString()).doesNotContain("s3cret");
				assertThat(context.getBean(QuorumLockEngine.class).nodeAddresses()).hasSize(3);
			});
	}

	@Test
	void runWhenUserDefinesRegistryShouldBackOff() {
		this.runner.withUserConfiguration(UserRegistryConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(DistributedLockRegistry.class)
				.doesNotHaveBean(QuorumLockEngine.class)
				.hasSingleBean(DistributedLockAdvisor.class);
			assertThat(context.getBean(DistributedLockRegistry.class)).isInstanceOf(UserRegistry.class);
		});
	}

	@Test
	void runWhenDisabledShouldBackOff() {
		this.runner.withPropertyValues("quorumlock.enabled=false", "quorumlock.nodes=redis://127.0.0.1:" + PORT_A)
			.run((context) -> assertThat(context).doesNotHaveBean(DistributedLockRegistry.class)
				.doesNotHaveBean(DistributedLockAdvisor.class)
				.doesNotHaveBean(DistributedLockMethodValidator.class)
				.doesNotHaveBean(QuorumLockProperties.class));
	}

	@Test
	void runShouldRegisterAdvisorOutsideTransactionsAndAnAutoProxyCreator() {
		this.runner.withPropertyValues("spring.data.redis.port=" + PORT_A).run((context) -> {
			assertThat(context.getBean(DistributedLockAdvisor.class).getOrder())
				.isEqualTo(DistributedLockAdvisor.DEFAULT_ORDER)
				.isLessThan(org.springframework.core.Ordered.LOWEST_PRECEDENCE);
			assertThat(context).hasBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME);
			assertThat(context).hasSingleBean(DistributedLockMethodValidator.class);
		});
	}

	@Test
	void runWhenAspectOrderSetShouldOrderTheAdvisor() {
		this.runner.withPropertyValues("spring.data.redis.port=" + PORT_A, "quorumlock.aspect-order=42")
			.run((context) -> assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(42));
	}

	@Test
	void runWhenCustomizersDefinedShouldApplyThemInOrder() {
		this.runner.withPropertyValues("spring.data.redis.port=" + PORT_A)
			.withUserConfiguration(CustomizerConfiguration.class)
			.run((context) -> assertThat(context.getBean(CustomizerConfiguration.class).calls).containsExactly("first",
					"second"));
	}

	@Test
	void runWhenLockListenerBeansDefinedShouldAddThemToTheEngine() {
		this.runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + PORT_A)
			.withUserConfiguration(ListenerConfiguration.class)
			.run((context) -> {
				RecordingListener listener = context.getBean(RecordingListener.class);
				// the only node is down, so the engine reports it through every listener
				await().atMost(Duration.ofSeconds(10)).until(() -> listener.nodeErrors.contains("127.0.0.1:" + PORT_A));
			});
	}

	@Test
	void runWhenRetryDelayIsARangeShouldBindMinAndMax() {
		this.runner
			.withPropertyValues("spring.data.redis.port=" + PORT_A, "quorumlock.retry-delay=5ms..50ms",
					"quorumlock.on-lease-lost=log")
			.run((context) -> {
				QuorumLockProperties properties = context.getBean(QuorumLockProperties.class);
				assertThat(properties.getRetryDelay().getMin()).isEqualTo(Duration.ofMillis(5));
				assertThat(properties.getRetryDelay().getMax()).isEqualTo(Duration.ofMillis(50));
				assertThat(properties.getOnLeaseLost()).isEqualTo(OnLeaseLost.LOG);
			});
	}

	@Test
	void runWhenRetryDelayIsNestedShouldBindMinAndMax() {
		this.runner
			.withPropertyValues("spring.data.redis.port=" + PORT_A, "quorumlock.retry-delay.min=1ms",
					"quorumlock.retry-delay.max=2s")
			.run((context) -> {
				QuorumLockProperties properties = context.getBean(QuorumLockProperties.class);
				assertThat(properties.getRetryDelay().getMin()).isEqualTo(Duration.ofMillis(1));
				assertThat(properties.getRetryDelay().getMax()).isEqualTo(Duration.ofSeconds(2));
			});
	}

	@Test
	void runWhenNodeUriIsMalformedShouldFailNamingTheProperty() {
		this.runner
			.withPropertyValues(
					"quorumlock.nodes=redis://127.0.0.1:" + PORT_A + ",redis://app:s3cret@127.0.0.1:notaport")
			.run((context) -> assertThat(propertyFailure(context))
				.hasMessage("quorumlock.nodes[1]=redis://******@127.0.0.1:notaport: needs a host and a numeric port, "
						+ "as redis://host:6379")
				.hasMessageNotContaining("s3cret"));
	}

	@Test
	void runWhenNodeSchemeIsWrongShouldFailNamingTheProperty() {
		this.runner.withPropertyValues("quorumlock.nodes[0]=http://127.0.0.1:" + PORT_A)
			.run((context) -> assertThat(propertyFailure(context)).hasMessageStartingWith("quorumlock.nodes[0]=http://")
				.hasMessageEndingWith("must start with redis:// or rediss://, not http://"));
	}

	@Test
	void runWhenNodeIsListedTwiceShouldFailNamingTheProperty() {
		this.runner
			.withPropertyValues("quorumlock.nodes=redis://127.0.0.1:" + PORT_A + ",redis://LOCALHOST:" + PORT_B
					+ ",redis://127.0.0.1:" + PORT_A + "/3")
			.run((context) -> assertThat(propertyFailure(context))
				.hasMessage("quorumlock.nodes[2]=redis://127.0.0.1:" + PORT_A + "/3: 127.0.0.1:" + PORT_A
						+ " is already listed as quorumlock.nodes[0]; each node must be a distinct master"));
	}

	@Test
	void runWhenDurationIsNegativeShouldFailNamingTheProperty() {
		this.runner.withPropertyValues("spring.data.redis.port=" + PORT_A, "quorumlock.wait-at-most=-1s")
			.run((context) -> assertThat(propertyFailure(context))
				.hasMessage("quorumlock.wait-at-most=-1s: must not be negative"));
	}

	@Test
	void runWhenInstanceDurationIsNegativeShouldFailNamingTheProperty() {
		this.runner.withPropertyValues("spring.data.redis.port=" + PORT_A, "quorumlock.instances.orders.lease=-5s")
			.run((context) -> assertThat(propertyFailure(context))
				.hasMessage("quorumlock.instances.orders.lease=-5s: must be positive"));
	}

	@Test
	void runWhenDriftFactorIsOutOfRangeShouldFailNamingTheProperty() {
		this.runner.withPropertyValues("spring.data.redis.port=" + PORT_A, "quorumlock.clock-drift-factor=0.5")
			.run((context) -> assertThat(propertyFailure(context))
				.hasMessageStartingWith("quorumlock.clock-drift-factor=0.5: must be in [0, 0.5)"));
	}

	@Test
	void runWhenNodeTimeoutIsNotWellBelowTheLeaseShouldFailNamingTheProperty() {
		this.runner.withPropertyValues("spring.data.redis.port=" + PORT_A, "quorumlock.node-timeout=10s")
			.run((context) -> assertThat(propertyFailure(context))
				.hasMessageStartingWith("quorumlock.node-timeout=10s: lease 30000 ms is too short for node timeout "
						+ "10000 ms: the node timeout must be below a third of every lease (the lease is quorumlock.lease)"));
	}

	@Test
	void runWhenNodeTimeoutIsNotWellBelowAnInstanceLeaseShouldFailNamingTheProperty() {
		this.runner
			.withPropertyValues("spring.data.redis.port=" + PORT_A, "quorumlock.node-timeout=50ms",
					"quorumlock.instances.orders.lease=150ms")
			.run((context) -> assertThat(propertyFailure(context))
				.hasMessageStartingWith("quorumlock.node-timeout=50ms: lease 150 ms is too short for node timeout "
						+ "50 ms: the node timeout must be below a third of every lease (the lease is "
						+ "quorumlock.instances.orders.lease)"));
	}

	@Test
	void runWhenHoldAtMostIsShorterThanTheLeaseShouldFailNamingTheProperty() {
		this.runner.withPropertyValues("spring.data.redis.port=" + PORT_A, "quorumlock.hold-at-most=10s")
			.run((context) -> assertThat(propertyFailure(context))
				.hasMessage("quorumlock.hold-at-most=10s: holdAtMost 10000 ms is shorter than lease 30000 ms "
						+ "(the lease is quorumlock.lease)"));
	}

	@Test
	void runWhenRetryDelayIsInvertedShouldFailNamingTheProperty() {
		this.runner.withPropertyValues("spring.data.redis.port=" + PORT_A, "quorumlock.retry-delay=200ms..10ms")
			.run((context) -> assertThat(propertyFailure(context))
				.hasMessage("quorumlock.retry-delay=200ms..10ms: max must not be below min"));
	}

	@Test
	void runWhenSpringDataRedisIsAClusterShouldUseSingleModeOnTheCluster() {
		this.runner.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:" + PORT_A + ",127.0.0.1:" + PORT_B)
			.run((context) -> {
				QuorumLockEngine engine = context.getBean(QuorumLockEngine.class);
				assertThat(engine.nodeAddresses())
					.containsExactly("cluster(127.0.0.1:" + PORT_A + ",127.0.0.1:" + PORT_B + ")");
				assertThat(engine.quorum()).isOne();
				assertThat(engine.mode()).isEqualTo("single");
			});
	}

	@Test
	void runWhenSpringDataRedisIsAClusterAndSyncReplicasSetShouldFailNamingTheProperty() {
		this.runner
			.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:" + PORT_A, "quorumlock.sync-replicas=1")
			.run((context) -> assertThat(propertyFailure(context))
				.hasMessageStartingWith(
						"quorumlock.sync-replicas=1: is not supported in single mode on a Redis Cluster")
				.hasMessageContaining("set it to 0"));
	}

	@Test
	void runWhenSpringDataRedisIsAClusterAndKeyPrefixHasBracesShouldFailNamingTheProperty() {
		this.runner
			.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:" + PORT_A, "quorumlock.key-prefix=app{x}:")
			.run((context) -> assertThat(propertyFailure(context)).hasMessageStartingWith(
					"quorumlock.key-prefix=app{x}:: must not contain '{' or '}' on a Redis Cluster"));
	}

	@Test
	void runWhenNoNodesAndNoSpringDataRedisShouldFailAskingForOne() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
			.run((context) -> assertThat(propertyFailure(context))
				.hasMessageContaining("spring-boot-starter-data-redis")
				.hasMessageContaining("quorumlock.nodes"));
	}

	@Test
	void runWhenAPropertyIsBadShouldBeExplainedByTheFailureAnalyzer() {
		this.runner.withPropertyValues("spring.data.redis.port=" + PORT_A, "quorumlock.node-timeout=10s")
			.run((context) -> {
				// a plain property source, not MockEnvironment: the return types of its
				// setters changed in Spring Framework 7, and this class reruns on Boot 4
				StandardEnvironment environment = new StandardEnvironment();
				environment.getPropertySources()
					.addFirst(new MapPropertySource("mockProperties", Map.of("quorumlock.node-timeout", "10s")));
				FailureAnalysis analysis = new QuorumLockPropertyFailureAnalyzer(environment)
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("'quorumlock.node-timeout' is '10s'")
					.contains("(from \"quorumlock.node-timeout\" from property source \"mockProperties\")")
					.contains("must be below a third of every lease");
				assertThat(analysis.getAction())
					.startsWith("Where it is set (\"quorumlock.node-timeout\" from property "
							+ "source \"mockProperties\"): Lower quorumlock.node-timeout");
			});
	}

	private static InvalidQuorumLockPropertyException propertyFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		Throwable failure = context.getStartupFailure();
		while (failure != null && !(failure instanceof InvalidQuorumLockPropertyException)) {
			failure = failure.getCause();
		}
		assertThat(failure).as("an InvalidQuorumLockPropertyException in %s", context.getStartupFailure()).isNotNull();
		return (InvalidQuorumLockPropertyException) failure;
	}

	private static int closedPort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class UserRegistryConfiguration {

		@Bean
		UserRegistry userRegistry() {
			return new UserRegistry();
		}

	}

	static class UserRegistry implements DistributedLockRegistry {

		@Override
		public Lease acquire(LockRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public CompletableFuture<Lease> acquireAsync(LockRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public <T> T execute(LockRequest request, Callable<T> action) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Lock asLock(String key) {
			throw new UnsupportedOperationException();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomizerConfiguration {

		final List<String> calls = new CopyOnWriteArrayList<>();

		@Bean
		@Order(2)
		QuorumLockEngineCustomizer second() {
			return (builder) -> this.calls.add("second");
		}

		@Bean
		@Order(1)
		QuorumLockEngineCustomizer first() {
			return (builder) -> this.calls.add("first");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ListenerConfiguration {

		@Bean
		RecordingListener recordingListener() {
			return new RecordingListener();
		}

	}

	static class RecordingListener implements LockListener {

		final List<String> nodeErrors = new CopyOnWriteArrayList<>();

		@Override
		public void onNodeError(String node, Throwable error) {
			this.nodeErrors.add(node);
		}

	}

}
