package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Single mode on Spring Boot 4 ({@link Boot4SingleModeConfiguration}), where Boot's Redis
 * support lives in {@code spring-boot-data-redis}: the TLS bundle on the top-level
 * connection details, {@code ssl.enabled=true} without a bundle meaning the JDK's default
 * trust, a static master/replica set refused with a property error, and the Lettuce line
 * each Boot line brings. A real {@code redis-server} serves TLS with a CA made by the
 * test.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class Boot4SingleModeIntegrationTests {

	private static TestCertificates certificates;

	private static RedisServers redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, DataRedisAutoConfiguration.class,
				QuorumLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.node-timeout=500ms", "spring.data.redis.host=127.0.0.1");

	@BeforeAll
	static void startTlsServer() {
		assumeTrue(RedisServers.binarySupportsTls(),
				"the redis-server in use was built without TLS (no OpenSSL in the binary), so rediss:// cannot be "
						+ "tested; install a TLS-enabled redis-server or set REDIS_SERVER to one");
		certificates = TestCertificates.generate();
		redis = RedisServers.builder()
			.tls(certificates.certificate(), certificates.privateKey(), certificates.caCertificate())
			.build()
			.start();
	}

	@AfterAll
	static void stopTlsServer() {
		if (redis != null) {
			redis.close();
		}
	}

	@BeforeEach
	void reset() {
		redis.reset();
	}

	@Test
	void standaloneLocksOnTheConfiguredServerAndDatabase() {
		RedisServer node = redis.node(0);
		this.runner.withPropertyValues("spring.data.redis.port=" + node.port(), "spring.data.redis.database=0")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(DataRedisConnectionDetails.class);
				DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
				try (Lease lease = registry.acquire(LockRequest.of("boot4").waitAtMost(Duration.ofSeconds(5)))) {
					assertThat(node.exists("lock:{boot4}")).isTrue();
				}
				assertThat(node.exists("lock:{boot4}")).isFalse();
			});
	}

	@Test
	void sslBundleOnTheTopLevelConnectionDetailsIsTrusted() {
		RedisServer node = redis.node(0);
		this.runner
			.withPropertyValues("spring.data.redis.port=" + node.tlsPort(), "spring.data.redis.ssl.enabled=true",
					"spring.data.redis.ssl.bundle=redis-ca",
					"spring.ssl.bundle.pem.redis-ca.truststore.certificate=file:" + certificates.caCertificate())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
				try (Lease lease = registry.acquire(LockRequest.of("tls").waitAtMost(Duration.ofSeconds(5)))) {
					assertThat(node.exists("lock:{tls}")).isTrue();
				}
			});
	}

	@Test
	void sslEnabledWithoutABundleUsesTlsWithTheJdkDefaultTrust() {
		RedisServer node = redis.node(0);
		this.runner.withPropertyValues("spring.data.redis.port=" + node.tlsPort(), "spring.data.redis.ssl.enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RedisConnection connection = Boot4SingleModeConfiguration.connection(
						context.getBean(DataRedisConnectionDetails.class), context.getBean(DataRedisProperties.class));
				assertThat(connection.ssl()).isTrue();
				assertThat(connection.sslBundle().getStores().getTrustStore()).as("the JDK's default trust").isNull();
				// TLS is spoken (a plain-text client gets no certificate error) and the
				// test's CA is not in the JDK's trust store
				assertThatExceptionOfType(QuorumUnavailableException.class)
					.isThrownBy(() -> context.getBean(DistributedLockRegistry.class)
						.tryAcquire(LockRequest.of("default-trust")))
					.withMessageContaining("unable to find valid certification path to requested target");
				assertThat(node.call("DBSIZE")).isEqualTo(0L);
			});
	}

	@Test
	void masterReplicaNodesAreRefusedWithAPropertyError() {
		RedisServer node = redis.node(0);
		this.runner.withPropertyValues("spring.data.redis.masterreplica.nodes=127.0.0.1:" + node.port())
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable failure = context.getStartupFailure();
				InvalidQuorumLockPropertyException cause = findCause(failure);
				assertThat(cause.getProperty()).isEqualTo("spring.data.redis.masterreplica.nodes");
				assertThat(cause.getValue()).isEqualTo("[127.0.0.1:" + node.port() + "]");
				assertThat(cause.getReason()).contains("not supported in single mode");
				FailureAnalysis analysis = new QuorumLockPropertyFailureAnalyzer(new StandardEnvironment())
					.analyze(failure);
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("spring.data.redis.masterreplica.nodes");
			});
	}

	@Test
	void sentinelKeepsMasterNameSentinelsAndCredentials() {
		DataRedisConnectionDetails details = new DataRedisConnectionDetails() {

			@Override
			public String getPassword() {
				return "s3cret";
			}

			@Override
			public Sentinel getSentinel() {
				return new Sentinel() {

					@Override
					public int getDatabase() {
						return 2;
					}

					@Override
					public String getMaster() {
						return "mymaster";
					}

					@Override
					public List<Node> getNodes() {
						return List.of(new Node("s1", 26379), new Node("s2", 26380));
					}

					@Override
					public String getUsername() {
						return null;
					}

					@Override
					public String getPassword() {
						return "sentinel-pw";
					}

				};
			}

		};
		RedisURI uri = SingleModeNodes.redisUri(Boot4SingleModeConfiguration.connection(details, null));
		assertThat(uri.getSentinelMasterId()).isEqualTo("mymaster");
		assertThat(uri.getDatabase()).isEqualTo(2);
		assertThat(uri.getSentinels()).extracting(RedisURI::getHost).containsExactly("s1", "s2");
		assertThat(uri.isSsl()).isFalse();
		assertThat(uri.toString()).doesNotContain("s3cret").doesNotContain("sentinel-pw");
	}

	@Test
	void eachBootLineBringsItsLettuceLine() {
		String lettuce = RedisURI.class.getPackage().getImplementationVersion();
		assertThat(lettuce).isNotNull();
		if (SpringBootVersion.getVersion().startsWith("4.0.")) {
			assertThat(lettuce).startsWith("6.");
		}
		else {
			assertThat(lettuce).as("Boot %s", SpringBootVersion.getVersion()).startsWith("7.");
		}
	}

	private static InvalidQuorumLockPropertyException findCause(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidQuorumLockPropertyException invalid) {
				return invalid;
			}
		}
		throw new AssertionError("no InvalidQuorumLockPropertyException in " + failure, failure);
	}

}
