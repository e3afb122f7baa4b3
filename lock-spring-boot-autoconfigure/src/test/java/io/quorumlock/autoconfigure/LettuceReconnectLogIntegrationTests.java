package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One voice for operators: when a master goes down, quorumlock's WARN says so, and
 * Lettuce's own reconnect lines about that master ({@code ConnectionWatchdog}) stay out
 * of the log; Lettuce's lines about another Redis server, through a client that is not
 * the engine's, still appear.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class LettuceReconnectLogIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(2);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.rejoin-delay=0s", "quorumlock.node-timeout=1s",
				"quorumlock.nodes=" + redis.node(0).uri());

	@Test
	void aMasterThatGoesDownIsReportedByQuorumlockAloneNotAlsoByLettuce(CapturedOutput output) {
		String master = ":" + redis.node(0).port();
		String other = ":" + redis.node(1).port();
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			RedisClient client = RedisClient.create(redis.node(1).uri());
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				assertThat(connection.sync().ping()).isEqualTo("PONG");
				redis.node(0).kill();
				redis.node(1).kill();
				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
					assertThat(output).contains("quorumlock: master 127.0.0.1" + master + " is not connected");
					assertThat(watchdogLines(output, other)).as("Lettuce's line about another server").isNotEmpty();
					assertThat(context.getBean(LettuceReconnectLog.class).kept())
						.as("Lettuce's lines about the master kept out")
						.isPositive();
				});
				assertThat(watchdogLines(output, master)).isEmpty();
			}
			finally {
				client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
			}
		});
	}

	private static List<String> watchdogLines(CapturedOutput output, String port) {
		return output.getAll()
			.lines()
			.filter((line) -> line.contains("ConnectionWatchdog") && line.contains(port))
			.toList();
	}

}
