package io.quorumlock.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.DistributedLock;
import io.quorumlock.redis.QuorumLockEngine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node timeout the engine is built with when {@code quorumlock.node-timeout} is not
 * set: 50 ms with several masters; with one node, a client command timeout
 * ({@code spring.data.redis.timeout}, else one second), never more than a quarter of the
 * shortest declared lease and never below what 50 ms would allow for it. No Redis runs
 * here: the nodes are closed loopback ports, the engine reconnects in the background.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class NodeTimeoutDefaultsTests {

	private static final int PORT_A = closedPort();

	private static final int PORT_B = closedPort();

	private static final int PORT_C = closedPort();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.REDIS, QuorumLockAutoConfiguration.class));

	@Test
	void singleModeOnTheApplicationsConnectionDefaultsToOneSecond(CapturedOutput output) {
		this.runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + PORT_A)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(QuorumLockEngine.class).nodeTimeout()).isEqualTo(Duration.ofSeconds(1));
				assertThat(output)
					.contains("node-timeout 1s (one node's default; set quorumlock.node-timeout to " + "choose)");
			});
	}

	@Test
	void singleModeTakesSpringDataRedisTimeout() {
		this.runner
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + PORT_A,
					"spring.data.redis.timeout=2s")
			.run((context) -> assertThat(context.getBean(QuorumLockEngine.class).nodeTimeout())
				.isEqualTo(Duration.ofSeconds(2)));
	}

	@Test
	void oneListedMasterDefaultsToOneSecondWhateverSpringDataRedisSays() {
		this.runner.withPropertyValues("quorumlock.nodes=redis://127.0.0.1:" + PORT_A, "spring.data.redis.timeout=3s")
			.run((context) -> assertThat(context.getBean(QuorumLockEngine.class).nodeTimeout())
				.isEqualTo(Duration.ofSeconds(1)));
	}

	@Test
	void severalMastersKeepFiftyMilliseconds(CapturedOutput output) {
		this.runner
			.withPropertyValues("quorumlock.nodes[0]=redis://127.0.0.1:" + PORT_A,
					"quorumlock.nodes[1]=redis://127.0.0.1:" + PORT_B,
					"quorumlock.nodes[2]=redis://127.0.0.1:" + PORT_C, "spring.data.redis.timeout=3s")
			.run((context) -> {
				assertThat(context.getBean(QuorumLockEngine.class).nodeTimeout()).isEqualTo(Duration.ofMillis(50));
				assertThat(output).contains("node-timeout 50ms, ").doesNotContain("one node's default");
			});
	}

	@Test
	void aSetNodeTimeoutIsKeptInSingleMode(CapturedOutput output) {
		this.runner
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + PORT_A,
					"spring.data.redis.timeout=3s", "quorumlock.node-timeout=80ms")
			.run((context) -> {
				assertThat(context.getBean(QuorumLockEngine.class).nodeTimeout()).isEqualTo(Duration.ofMillis(80));
				assertThat(output).contains("node-timeout 80ms").doesNotContain("one node's default");
			});
	}

	@Test
	void theDefaultFitsAShortGlobalLease() {
		this.runner
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + PORT_A,
					"quorumlock.lease=2s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(QuorumLockEngine.class).nodeTimeout()).isEqualTo(Duration.ofMillis(500));
			});
	}

	@Test
	void theDefaultFitsTheShortestInstanceLease() {
		this.runner
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + PORT_A,
					"quorumlock.instances.fast.lease=1200ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(QuorumLockEngine.class).nodeTimeout()).isEqualTo(Duration.ofMillis(300));
			});
	}

	@Test
	void theDefaultFitsAnAnnotatedLeaseSoTheMethodIsAccepted() {
		this.runner.withUserConfiguration(ShortLeaseService.Config.class)
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + PORT_A)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(QuorumLockEngine.class).nodeTimeout()).isEqualTo(Duration.ofMillis(200));
			});
	}

	@Test
	void aVeryShortLeaseKeepsWhatFiftyMillisecondsWouldHaveAllowed() {
		// a quarter of 160 ms is 40 ms, below the 50 ms that already fits a 160 ms lease
		this.runner
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + PORT_A,
					"quorumlock.lease=160ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(QuorumLockEngine.class).nodeTimeout()).isEqualTo(Duration.ofMillis(50));
			});
	}

	@Test
	void aSetNodeTimeoutTooLongForTheLeaseStillFailsNamingIt() {
		this.runner
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + PORT_A,
					"quorumlock.lease=2s", "quorumlock.node-timeout=1s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(InvalidQuorumLockPropertyException.class)
					.hasMessageContaining("quorumlock.node-timeout")
					.hasMessageContaining("lease 2000 ms is too short for node timeout 1000 ms");
			});
	}

	private static int closedPort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static class ShortLeaseService {

		@DistributedLock(key = "'short'", lease = "800ms")
		public void run() {
		}

		@Configuration(proxyBeanMethods = false)
		static class Config {

			@Bean
			ShortLeaseService shortLeaseService() {
				return new ShortLeaseService();
			}

		}

	}

	@Test
	void theEngineBuilderKeepsFiftyMillisecondsForProgrammaticUse() {
		// its callers give leases at call time that no default could know in advance
		try (QuorumLockEngine one = QuorumLockEngine.builder().nodes("redis://127.0.0.1:" + PORT_A).build()) {
			assertThat(one.nodeTimeout()).isEqualTo(Duration.ofMillis(50));
		}
	}

}
