package io.quorumlock.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link QuorumLockHealthDefaults}: in quorum mode, Spring Data Redis's health indicator
 * (which pings a connection the locks do not use) is off unless the application
 * configures {@code spring.data.redis} or the indicator itself. No Redis runs here.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisHealthDefaultsTests {

	private static final String REDIS_HEALTH = "redisHealthContributor";

	private static final String[] THREE_NODES = { "quorumlock.nodes[0]=redis://127.0.0.1:" + closedPort(),
			"quorumlock.nodes[1]=redis://127.0.0.1:" + closedPort(),
			"quorumlock.nodes[2]=redis://127.0.0.1:" + closedPort(), "quorumlock.rejoin-delay=0s" };

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withInitializer(new QuorumLockHealthDefaults())
		.withConfiguration(AutoConfigurations.of(BootLine.REDIS, BootLine.REDIS_HEALTH, BootLine.HEALTH_CONTRIBUTORS,
				QuorumLockAutoConfiguration.class));

	@Test
	void runInQuorumModeWithoutSpringDataRedisShouldNotCheckTheUnusedConnection() {
		this.runner.withPropertyValues(THREE_NODES).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.containsBean(REDIS_HEALTH)).isFalse();
		});
	}

	@Test
	void runInQuorumModeWithSpringDataRedisShouldKeepItsHealth() {
		this.runner.withPropertyValues(THREE_NODES)
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + closedPort())
			.run((context) -> assertThat(context.containsBean(REDIS_HEALTH)).isTrue());
	}

	@Test
	void runInQuorumModeWithTheIndicatorEnabledShouldKeepIt() {
		this.runner.withPropertyValues(THREE_NODES)
			.withPropertyValues("management.health.redis.enabled=true")
			.run((context) -> assertThat(context.containsBean(REDIS_HEALTH)).isTrue());
	}

	@Test
	void runInSingleModeShouldKeepIt() {
		this.runner.withPropertyValues("spring.data.redis.port=" + closedPort())
			.run((context) -> assertThat(context.containsBean(REDIS_HEALTH)).isTrue());
	}

	private static int closedPort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
