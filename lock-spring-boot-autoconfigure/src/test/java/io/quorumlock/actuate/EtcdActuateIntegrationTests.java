package io.quorumlock.actuate;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.RegistryStatus;
import io.quorumlock.autoconfigure.BootLine;
import io.quorumlock.autoconfigure.DistributedLockHealthContributorAutoConfiguration;
import io.quorumlock.autoconfigure.LocksEndpointAutoConfiguration;
import io.quorumlock.autoconfigure.QuorumLockAutoConfiguration;
import io.quorumlock.autoconfigure.QuorumLockMetricsAutoConfiguration;
import io.quorumlock.autoconfigure.QuorumLockObservationAutoConfiguration;
import io.quorumlock.testing.EtcdCluster;
import io.quorumlock.testing.EtcdMembers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What operators see in etcd mode, wired by the auto-configurations on a real
 * three-member cluster: {@code /actuator/locks} lists the holds of this instance with
 * their fencing tokens and each member's state, and force-unlock ends a hold; the
 * {@code distributedLock} health is UP while a majority of members answers with a leader
 * and DOWN once it does not; the {@code distributed.lock.*} meters count as on Redis,
 * with a state per member.
 */
@EtcdCluster(members = 3)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdActuateIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	static EtcdMembers etcd;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class,
				QuorumLockMetricsAutoConfiguration.class, QuorumLockObservationAutoConfiguration.class,
				LocksEndpointAutoConfiguration.class, DistributedLockHealthContributorAutoConfiguration.class))
		.withConfiguration(AutoConfigurations.of(BootLine.METRICS, BootLine.SIMPLE_METRICS_EXPORT,
				BootLine.COMPOSITE_METER_REGISTRY))
		.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, BootLine.HEALTH_CONTRIBUTORS,
				BootLine.HEALTH_ENDPOINT))
		.withPropertyValues("quorumlock.etcd.endpoints=" + String.join(",", etcd.endpoints()),
				"management.endpoints.web.exposure.include=locks,health",
				// a loaded build machine: each request may take longer than the default 1
				// s
				"quorumlock.etcd.request-timeout=2s");

	@Test
	void theLocksEndpointListsEtcdHoldsAndForcesOneOpen() {
		this.runner.run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			try (Lease lease = registry.acquire(LockRequest.of("42").name("orders"))) {
				long token = lease.fencingToken();
				await().atMost(WAIT).until(() -> endpoint.locks(null).quorumAvailable());
				LocksEndpoint.LocksDescriptor locks = endpoint.locks(null);
				assertThat(locks.mode()).isEqualTo("etcd");
				assertThat(locks.quorum()).isEqualTo(2);
				assertThat(locks.nodes()).hasSize(3)
					.extracting(LocksEndpoint.NodeDescriptor::state)
					.containsOnly("voting");
				assertThat(locks.leases()).singleElement().satisfies((held) -> {
					assertThat(held.lock()).isEqualTo("orders");
					assertThat(held.keys()).containsExactly("lock:orders:{42}");
					assertThat(held.fencingToken()).isEqualTo(token);
				});
				assertThat(endpoint.locks(true).keysWithoutTtl()).isEmpty();
				assertThatExceptionOfType(InvalidEndpointRequestException.class)
					.isThrownBy(() -> endpoint.forceUnlock(null, "other:{42}"));
				assertThat(endpoint.forceUnlock(null, "lock:orders:{42}").deletedOnNodes()).isOne();
				// the holder learns it at its next keep-alive
				await().atMost(WAIT).until(() -> !lease.isValid());
			}
			catch (LeaseLostException expected) {
				// released after the forced unlock: the loss is reported
			}
			try (Lease next = registry.acquire(LockRequest.of("42").name("orders"))) {
				assertThat(next.isValid()).isTrue();
			}
		});
	}

	@Test
	void healthIsUpWithAMajorityAndDownWithoutOne() {
		this.runner.run((context) -> {
			assertThat(context).hasBean("distributedLockHealthContributor");
			RegistryStatus status = context.getBean(RegistryStatus.class);
			await().atMost(WAIT).until(() -> LockHealthReport.quorum(status).up());
			etcd.member(2).kill();
			await().atMost(WAIT).until(() -> LockHealthReport.node(status, 2).details().get("state").equals("down"));
			assertThat(LockHealthReport.quorum(status).up()).isTrue();
			etcd.member(1).kill();
			await().atMost(WAIT).until(() -> !LockHealthReport.quorum(status).up());
			// the member left alone loses its leader within an election timeout
			await().atMost(WAIT)
				.until(() -> LockHealthReport.node(status, 0).details().get("state").equals("held-back"));
			assertThat(LockHealthReport.quorum(status).up()).isFalse();
			LockHealthReport.Verdict verdict = LockHealthReport.quorum(status);
			assertThat(verdict.details()).containsEntry("mode", "etcd").containsEntry("quorum", 2);
			assertThat(LockHealthReport.node(status, 0).details()).containsEntry("up", true)
				.containsEntry("voting", false)
				.containsKey("heldBackBy");
		});
	}

	@Test
	void theLockMetersCountOnEtcdAsOnRedis() {
		this.runner.run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			try (Lease lease = registry.acquire(LockRequest.of("7").name("payments"))) {
				assertThat(meters.get("distributed.lock.active").gauge().value()).isEqualTo(1);
				assertThatExceptionOfType(LockNotAcquiredException.class)
					.isThrownBy(() -> registry.acquire(LockRequest.of("7").name("payments")).release());
			}
			assertThat(meters.get("distributed.lock.active").gauge().value()).isZero();
			assertThat(meters.get("distributed.lock.wait")
				.tag("lock", "payments")
				.tag("outcome", "acquired")
				.timer()
				.count()).isEqualTo(1);
			assertThat(meters.get("distributed.lock.wait")
				.tag("lock", "payments")
				.tag("outcome", "timeout")
				.timer()
				.count()).isEqualTo(1);
			assertThat(meters.get("distributed.lock.held").tag("lock", "payments").timer().count()).isEqualTo(1);
			String member = "127.0.0.1:" + etcd.member(0).clientPort();
			await().atMost(WAIT)
				.until(() -> meters.get("distributed.lock.node.state")
					.tag("node", member)
					.tag("state", "voting")
					.gauge()
					.value() == 1);
		});
	}

}
