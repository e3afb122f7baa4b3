package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.lettuce.core.SslOptions;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code rediss://} nodes against a {@code redis-server} serving TLS with a CA made by
 * the test: trusted through the engine builder's {@code sslOptions} or through a Spring
 * Boot SSL bundle named by {@code quorumlock.ssl.bundle}; refused, and never granted,
 * without that trust.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsIntegrationTests {

	private static TestCertificates certificates;

	private static RedisServers redis;

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
	void engineTrustingTheCaLocksOverTls() throws Exception {
		RedisServer node = redis.node(0);
		SslOptions trust = SslOptions.builder()
			.jdkSslProvider()
			.trustManager(certificates.caCertificate().toFile())
			.build();
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(node.tlsUri())
			.sslOptions(trust)
			.nodeTimeout(Duration.ofMillis(500))
			.build()) {
			Lease lease = engine.acquire(LockRequest.of("tls").waitAtMost(Duration.ofSeconds(5)));
			assertThat(node.get("lock:{tls}")).hasSize(40);
			assertThat(lease.fencingToken()).isPositive();
			assertThat(CompletableFuture.supplyAsync(() -> engine.tryAcquire(LockRequest.of("tls")))
				.get(10, TimeUnit.SECONDS)).as("another thread").isEmpty();
			lease.release();
			assertThat(node.exists("lock:{tls}")).isFalse();
		}
	}

	@Test
	void engineWithoutTrustInTheCaIsRefusedAndNeverGranted() {
		RedisServer node = redis.node(0);
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(node.tlsUri())
			.nodeTimeout(Duration.ofMillis(500))
			.build()) {
			assertThatExceptionOfType(QuorumUnavailableException.class)
				.isThrownBy(() -> engine.tryAcquire(LockRequest.of("untrusted")))
				.withMessageContaining("acquired 0 of 1 nodes, quorum 1")
				.withMessageContaining("127.0.0.1:" + node.tlsPort() + ": not connected, last attempt: ")
				.withMessageContaining("unable to find valid certification path to requested target");
			assertThat(node.call("DBSIZE")).isEqualTo(0L);
		}
	}

	@Test
	void plainTextClientOnTheTlsPortIsNeverGranted() {
		RedisServer node = redis.node(0);
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes("redis://127.0.0.1:" + node.tlsPort())
			.nodeTimeout(Duration.ofMillis(500))
			.build()) {
			assertThatExceptionOfType(QuorumUnavailableException.class)
				.isThrownBy(() -> engine.tryAcquire(LockRequest.of("plain")))
				.withMessageContaining("127.0.0.1:" + node.tlsPort() + ": not connected, last attempt: ");
			assertThat(node.call("DBSIZE")).isEqualTo(0L);
		}
	}

	@Test
	void singleModeTrustsTheSslBundleOfSpringDataRedis() {
		RedisServer node = redis.node(0);
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, BootLine.REDIS,
					QuorumLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + node.tlsPort(),
					"spring.data.redis.ssl.enabled=true", "spring.data.redis.ssl.bundle=redis-ca",
					"spring.ssl.bundle.pem.redis-ca.truststore.certificate=file:" + certificates.caCertificate(),
					"quorumlock.node-timeout=500ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
				try (Lease lease = registry.acquire(LockRequest.of("single").waitAtMost(Duration.ofSeconds(5)))) {
					assertThat(node.exists("lock:{single}")).isTrue();
				}
				assertThat(node.exists("lock:{single}")).isFalse();
			});
	}

	@Test
	void autoConfigurationTrustsTheSslBundleNamedByQuorumlockSslBundle() {
		RedisServer node = redis.node(0);
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, QuorumLockAutoConfiguration.class))
			.withPropertyValues("quorumlock.nodes=" + node.tlsUri(), "quorumlock.ssl.bundle=redis-ca",
					"quorumlock.node-timeout=500ms",
					"spring.ssl.bundle.pem.redis-ca.truststore.certificate=file:" + certificates.caCertificate())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
				try (Lease lease = registry.acquire(LockRequest.of("bundle").waitAtMost(Duration.ofSeconds(5)))) {
					assertThat(node.exists("lock:{bundle}")).isTrue();
				}
				assertThat(node.exists("lock:{bundle}")).isFalse();
			});
	}

}
