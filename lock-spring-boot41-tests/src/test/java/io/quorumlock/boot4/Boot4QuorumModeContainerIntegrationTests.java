package io.quorumlock.boot4;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.autoconfigure.QuorumLockConnectionDetails;
import io.quorumlock.redis.QuorumLockEngine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Quorum mode on three Redis containers on Spring Boot 4 and Testcontainers 2, each
 * declared with {@code @ServiceConnection(name = "quorumlock")}: the auto-configuration
 * takes the masters from them, ahead of {@code quorumlock.nodes} (set here to a port
 * nobody serves), and a lock still stands with one container stopped.
 */
@SpringBootTest(classes = Boot4QuorumModeContainerIntegrationTests.App.class,
		properties = { "quorumlock.nodes=redis://127.0.0.1:1", "quorumlock.node-timeout=500ms",
				// fresh containers: the restart guard would hold each back for the
				// longest lease
				"quorumlock.rejoin-delay=0s" })
@Testcontainers(disabledWithoutDocker = true)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Boot4QuorumModeContainerIntegrationTests {

	@Container
	@ServiceConnection(name = "quorumlock")
	static final GenericContainer<?> redis1 = ContainerRedis.container();

	@Container
	@ServiceConnection(name = "quorumlock")
	static final GenericContainer<?> redis2 = ContainerRedis.container();

	@Container
	@ServiceConnection(name = "quorumlock")
	static final GenericContainer<?> redis3 = ContainerRedis.container();

	@Autowired
	private List<QuorumLockConnectionDetails> connections;

	@Autowired
	private QuorumLockEngine engine;

	@Autowired
	private DistributedLockRegistry locks;

	@Test
	void everyContainerIsAMasterAndALockStandsWithOneStopped() {
		assertThat(SpringBootVersion.getVersion()).startsWith("4.");
		assertThat(this.connections).isNotEmpty();
		assertThat(this.engine.mode()).isEqualTo("quorum");
		assertThat(this.engine.quorum()).isEqualTo(2);
		assertThat(this.engine.nodeAddresses()).containsExactlyInAnyOrder(ContainerRedis.address(redis1),
				ContainerRedis.address(redis2), ContainerRedis.address(redis3));
		try (Lease lease = acquire("tc-quorum")) {
			assertThat(lease.isValid()).isTrue();
			assertThat(this.locks.tryAcquire(LockRequest.of("tc-quorum"))).isEmpty();
		}

		redis3.stop(); // one master of three gone: two still make a quorum
		try (Lease lease = acquire("tc-stopped")) {
			assertThat(lease.isValid()).isTrue();
			assertThat(this.locks.tryAcquire(LockRequest.of("tc-stopped"))).isEmpty();
		}
	}

	private Lease acquire(String name) {
		return this.locks.acquire(LockRequest.of(name).waitAtMost(Duration.ofSeconds(10)));
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

	}

}
