package io.quorumlock.sample.testing;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.autoconfigure.QuorumLockConnectionDetails;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.sample.orders.OrderStore;
import io.quorumlock.sample.orders.PaymentOutcome;
import io.quorumlock.sample.orders.PaymentService;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Quorum mode on three Redis containers, each declared with
 * {@code @ServiceConnection(name = "quorumlock")}: the auto-configuration takes the
 * masters from them, ahead of {@code quorumlock.nodes}. One container is paused mid-test.
 */
@SpringBootTest(properties = { "sample.embedded-redis.enabled=false", "quorumlock.node-timeout=500ms",
		// fresh containers: the restart guard would hold each back for the longest lease
		"quorumlock.rejoin-delay=0s" })
@Testcontainers(disabledWithoutDocker = true)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuorumModeContainerTests {

	@Container
	@ServiceConnection(name = "quorumlock")
	static final GenericContainer<?> redis1 = new GenericContainer<>(RedisImage.name()).withExposedPorts(6379);

	@Container
	@ServiceConnection(name = "quorumlock")
	static final GenericContainer<?> redis2 = new GenericContainer<>(RedisImage.name()).withExposedPorts(6379);

	@Container
	@ServiceConnection(name = "quorumlock")
	static final GenericContainer<?> redis3 = new GenericContainer<>(RedisImage.name()).withExposedPorts(6379);

	@Autowired
	private QuorumLockEngine engine;

	@Autowired
	private List<QuorumLockConnectionDetails> connections;

	@Autowired
	private PaymentService payments;

	@Autowired
	private OrderStore orders;

	@Test
	void everyContainerIsAMaster() {
		assertThat(this.connections).isNotEmpty();
		assertThat(this.engine.mode()).isEqualTo("quorum");
		assertThat(this.engine.quorum()).isEqualTo(2);
		assertThat(this.engine.nodeAddresses()).containsExactlyInAnyOrder(address(redis1), address(redis2),
				address(redis3));
		this.orders.create("tc-quorum", 700);
		assertThat(this.payments.pay("tc-quorum")).isInstanceOf(PaymentOutcome.Charged.class);
	}

	@Test
	void locksWithOneContainerPaused() {
		redis3.getDockerClient().pauseContainerCmd(redis3.getContainerId()).exec();
		try {
			try (Lease lease = this.engine.acquire(LockRequest.of("tc-paused").waitAtMost(Duration.ofSeconds(10)))) {
				assertThat(lease.isValid()).isTrue();
				assertThat(this.engine.tryAcquire(LockRequest.of("tc-paused"))).isEmpty();
			}
		}
		finally {
			redis3.getDockerClient().unpauseContainerCmd(redis3.getContainerId()).exec();
		}
	}

	private static String address(GenericContainer<?> container) {
		return container.getHost() + ":" + container.getMappedPort(6379);
	}

}
