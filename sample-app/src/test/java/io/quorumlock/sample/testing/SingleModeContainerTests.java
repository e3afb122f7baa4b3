package io.quorumlock.sample.testing;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.sample.orders.OrderStore;
import io.quorumlock.sample.orders.PaymentOutcome;
import io.quorumlock.sample.orders.PaymentService;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Single mode on one Redis container: Boot's own Redis service connection (the
 * application's {@code spring.data.redis} connection) is the one node. With the official
 * image, {@code @ServiceConnection} needs no name; the name lets any Redis image serve.
 */
@SpringBootTest(properties = { "sample.embedded-redis.enabled=false", "quorumlock.node-timeout=500ms" })
@Testcontainers(disabledWithoutDocker = true)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SingleModeContainerTests {

	@Container
	@ServiceConnection(name = "redis")
	static final GenericContainer<?> redis = new GenericContainer<>(RedisImage.name()).withExposedPorts(6379);

	@Autowired
	private QuorumLockEngine engine;

	@Autowired
	private RedisConnectionDetails connection;

	@Autowired
	private PaymentService payments;

	@Autowired
	private OrderStore orders;

	@Test
	void locksOnTheContainerThroughBootsRedisServiceConnection() {
		assertThat(this.connection.getClass().getName()).contains("Container");
		assertThat(this.engine.mode()).isEqualTo("single");
		assertThat(this.engine.nodeAddresses()).containsExactly(redis.getHost() + ":" + redis.getMappedPort(6379));
		this.orders.create("tc-single", 500);
		assertThat(this.payments.pay("tc-single")).isInstanceOf(PaymentOutcome.Charged.class);
		assertThat(this.payments.pay("tc-single")).isInstanceOf(PaymentOutcome.AlreadyPaid.class);
	}

}
