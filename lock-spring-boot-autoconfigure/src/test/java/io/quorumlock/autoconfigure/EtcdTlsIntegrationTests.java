package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.EtcdMembers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Etcd mode over TLS, against a three-member cluster serving its clients over
 * {@code https://} with a CA made by the test: trusted through the SSL bundle named by
 * {@code quorumlock.etcd.ssl.bundle}; refused, and never granted, without that trust; a
 * bundle that does not exist, or beside an {@code http://} endpoint, stops the start-up.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdTlsIntegrationTests {

	private static TestCertificates certificates;

	private static EtcdMembers etcd;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, QuorumLockAutoConfiguration.class));

	@BeforeAll
	static void startTlsCluster() {
		certificates = TestCertificates.generate();
		etcd = EtcdMembers.startTls(3, certificates.certificate(), certificates.privateKey());
	}

	@AfterAll
	static void stopTlsCluster() {
		if (etcd != null) {
			etcd.close();
		}
	}

	private ApplicationContextRunner overTls() {
		return this.runner.withPropertyValues("quorumlock.etcd.endpoints=" + String.join(",", etcd.tlsEndpoints()));
	}

	@Test
	void theBundlesTrustLocksOverTls() {
		overTls()
			.withPropertyValues("quorumlock.etcd.ssl.bundle=etcd-ca",
					"spring.ssl.bundle.pem.etcd-ca.truststore.certificate=file:" + certificates.caCertificate())
			.run((context) -> {
				DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
				try (Lease lease = registry.acquire(LockRequest.of("tls").waitAtMost(Duration.ofSeconds(10)))) {
					assertThat(lease.fencingToken()).isPositive();
				}
				RegistryStatus status = context.getBean(RegistryStatus.class);
				await().atMost(Duration.ofSeconds(30)).until(status::quorumAvailable);
			});
	}

	@Test
	void withoutTheTrustNothingIsGranted() {
		overTls().run((context) -> {
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			assertThatExceptionOfType(QuorumUnavailableException.class)
				.isThrownBy(() -> registry.acquire(LockRequest.of("untrusted")));
			RegistryStatus status = context.getBean(RegistryStatus.class);
			await().atMost(Duration.ofSeconds(30))
				.until(() -> status.nodes().stream().allMatch((node) -> node.state() == RegistryStatus.NodeState.DOWN));
			assertThat(status.quorumAvailable()).isFalse();
		});
	}

	@Test
	void anUnknownBundleStopsTheStartup() {
		BadInput.assertRefused(BadInput.startup("unknown bundle", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.etcd.endpoints=" + etcd.tlsEndpoints().get(0), "quorumlock.etcd.ssl.bundle=nope"),
				"quorumlock.etcd.ssl.bundle", "nope", "spring.ssl.bundle.pem.nope"));
	}

	@Test
	void aBundleBesideAnHttpEndpointStopsTheStartup() {
		BadInput.assertRefused(BadInput.startup("plain endpoint", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.etcd.endpoints=" + etcd.endpoints().get(0), "quorumlock.etcd.ssl.bundle=etcd-ca",
						"spring.ssl.bundle.pem.etcd-ca.truststore.certificate=file:" + certificates.caCertificate()),
				"quorumlock.etcd.ssl.bundle", "is not https://"));
	}

}
