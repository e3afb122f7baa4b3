package io.quorumlock.boot4;

import java.time.Duration;
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
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.redis.QuorumLockEngine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Single mode on one Redis container on Spring Boot 4 and Testcontainers 2: Boot's own
 * Redis service connection ({@link DataRedisConnectionDetails}) is the one node. The name
 * {@code redis} lets any Redis image serve (the official one needs none).
 */
@SpringBootTest(classes = Boot4SingleModeContainerIntegrationTests.App.class,
		properties = "quorumlock.node-timeout=500ms")
@Testcontainers(disabledWithoutDocker = true)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Boot4SingleModeContainerIntegrationTests {

	@Container
	@ServiceConnection(name = "redis")
	static final GenericContainer<?> redis = ContainerRedis.container();

	@Autowired
	private DataRedisConnectionDetails connection;

	@Autowired
	private QuorumLockEngine engine;

	@Autowired
	private DistributedLockRegistry locks;

	@Test
	void locksOnTheContainerThroughBootsRedisServiceConnection() {
		assertThat(SpringBootVersion.getVersion()).startsWith("4.");
		assertThat(this.connection.getClass().getName()).contains("Container");
		assertThat(this.engine.mode()).isEqualTo("single");
		assertThat(this.engine.nodeAddresses()).containsExactly(ContainerRedis.address(redis));
		try (Lease lease = this.locks.acquire(LockRequest.of("tc-single").waitAtMost(Duration.ofSeconds(10)))) {
			assertThat(lease.isValid()).isTrue();
			assertThat(this.locks.tryAcquire(LockRequest.of("tc-single"))).isEmpty();
		}
		assertThat(this.locks.tryAcquire(LockRequest.of("tc-single"))).hasValueSatisfying(Lease::close);
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

	}

}
