package io.quorumlock.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.DistributedLock;
import io.quorumlock.LockRequest;
import io.quorumlock.aop.DistributedLockDeclarationException;
import io.quorumlock.redis.QuorumLockEngine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The restart guard in force is derived at start-up from every lease the configuration
 * and the annotated methods declare, so every instance of one deployment holds back a
 * restarted master equally long, whatever each has run. No Redis runs here: the nodes are
 * closed loopback ports.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RestartGuardAutoConfigurationTests {

	private static final String[] THREE_NODES = nodes();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.REDIS, QuorumLockAutoConfiguration.class))
		.withUserConfiguration(LockedServiceConfiguration.class)
		.withPropertyValues(THREE_NODES)
		.withPropertyValues("quorumlock.lease=10s", "quorumlock.instances.orders.lease=20s", BoundedWait.NODE_TIMEOUT);

	@Test
	void runWhenRejoinDelayIsUnsetShouldUseTheLongestDeclaredLeaseOnEveryInstance() {
		this.runner.run((first) -> this.runner.run((second) -> {
			QuorumLockEngine one = first.getBean(QuorumLockEngine.class);
			QuorumLockEngine two = second.getBean(QuorumLockEngine.class);
			// the annotated 40s lease, not the configured 10s and 20s
			assertThat(one.rejoinDelay()).isEqualTo(Duration.ofSeconds(40));
			// a lease no one declared is refused, and does not move the guard
			assertThatIllegalArgumentException()
				.isThrownBy(() -> one.acquire(LockRequest.of("k").lease(Duration.ofSeconds(60))))
				.withMessageContaining("lease 60000 ms is longer than the restart guard in force, 40000 ms "
						+ "(quorumlock.rejoin-delay)");
			assertThat(one.rejoinDelay()).isEqualTo(two.rejoinDelay()).isEqualTo(Duration.ofSeconds(40));
		}));
	}

	@Test
	void runWhenRejoinDelayIsShorterThanAConfiguredLeaseShouldFailNamingTheProperty() {
		this.runner.withPropertyValues("quorumlock.rejoin-delay=15s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(cause(context.getStartupFailure(), InvalidQuorumLockPropertyException.class))
				.hasMessage("quorumlock.rejoin-delay=15s: must not be shorter than quorumlock.instances.orders.lease "
						+ "(20s): a master restarted empty would vote again while a lease taken before the restart "
						+ "may still be held; set it to at least 20s on every instance, leave it unset, "
						+ "or 0s to turn the restart guard off");
		});
	}

	@Test
	void runWhenRejoinDelayIsShorterThanAnAnnotatedLeaseShouldFailNamingTheMethod() {
		this.runner.withPropertyValues("quorumlock.rejoin-delay=30s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(cause(context.getStartupFailure(), DistributedLockDeclarationException.class))
				.hasMessage("@DistributedLock on LockedService.slow(String): lease \"40s\" is longer than "
						+ "quorumlock.rejoin-delay (30000ms), the restart guard in force: a master restarted empty "
						+ "would vote again while this lease may still be held; raise quorumlock.rejoin-delay to "
						+ "at least 40000ms on every instance, or leave it unset");
		});
	}

	@Test
	void runWhenRejoinDelayIsZeroShouldTurnTheGuardOff() {
		this.runner.withPropertyValues("quorumlock.rejoin-delay=0s")
			.run((context) -> assertThat(context.getBean(QuorumLockEngine.class).rejoinDelay()).isZero());
	}

	@Test
	void runWhenTheDefaultLeaseIsUnusedShouldDeriveTheGuardFromTheDeclaredLeasesOnly() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootLine.REDIS, QuorumLockAutoConfiguration.class))
			.withUserConfiguration(ShortLeasesConfiguration.class)
			.withPropertyValues(THREE_NODES)
			.run((context) -> {
				QuorumLockEngine engine = context.getBean(QuorumLockEngine.class);
				// every declared lock has 10s or less: the unused default (30s) does not
				// count
				assertThat(engine.rejoinDelay()).isEqualTo(Duration.ofSeconds(10));
				// a programmatic request relying on the undeclared default is refused
				assertThatIllegalArgumentException().isThrownBy(() -> engine.acquire(LockRequest.of("k")))
					.withMessageContaining("lease 30000 ms is longer than the restart guard in force, 10000 ms");
			});
	}

	@Test
	void runWhenAnAnnotatedMethodReliesOnTheDefaultLeaseShouldCountIt() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootLine.REDIS, QuorumLockAutoConfiguration.class))
			.withUserConfiguration(ShortLeasesConfiguration.class, DefaultLeaseConfiguration.class)
			.withPropertyValues(THREE_NODES)
			.run((context) -> assertThat(context.getBean(QuorumLockEngine.class).rejoinDelay())
				.isEqualTo(Duration.ofSeconds(30)));
	}

	@Test
	void runWhenAnInstanceReliesOnTheDefaultLeaseShouldCountIt() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootLine.REDIS, QuorumLockAutoConfiguration.class))
			.withUserConfiguration(ShortLeasesConfiguration.class)
			.withPropertyValues(THREE_NODES)
			.withPropertyValues("quorumlock.instances.reports.wait-at-most=1s")
			.run((context) -> assertThat(context.getBean(QuorumLockEngine.class).rejoinDelay())
				.isEqualTo(Duration.ofSeconds(30)));
	}

	@Test
	void runWhenTheDefaultLeaseIsSetShouldCountItEvenIfUnused() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootLine.REDIS, QuorumLockAutoConfiguration.class))
			.withUserConfiguration(ShortLeasesConfiguration.class)
			.withPropertyValues(THREE_NODES)
			.withPropertyValues("quorumlock.lease=15s")
			.run((context) -> assertThat(context.getBean(QuorumLockEngine.class).rejoinDelay())
				.isEqualTo(Duration.ofSeconds(15)));
	}

	private static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (type.isInstance(t)) {
				return type.cast(t);
			}
		}
		throw new AssertionError("no " + type.getSimpleName() + " in " + failure, failure);
	}

	private static String[] nodes() {
		String[] properties = new String[3];
		for (int i = 0; i < 3; i++) {
			try (ServerSocket socket = new ServerSocket(0)) {
				properties[i] = "quorumlock.nodes[" + i + "]=redis://127.0.0.1:" + socket.getLocalPort();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return properties;
	}

	@Configuration(proxyBeanMethods = false)
	static class LockedServiceConfiguration {

		@Bean
		LockedService lockedService() {
			return new LockedService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ShortLeasesConfiguration {

		@Bean
		ShortLeases shortLeases() {
			return new ShortLeases();
		}

	}

	static class ShortLeases {

		@DistributedLock(key = "#id", lease = "10s")
		public String settle(String id) {
			return id;
		}

		@DistributedLock(key = "'report-job'", lease = "5s")
		public void report() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DefaultLeaseConfiguration {

		@Bean
		DefaultLease defaultLease() {
			return new DefaultLease();
		}

	}

	static class DefaultLease {

		@DistributedLock(key = "#id")
		public String process(String id) {
			return id;
		}

	}

	static class LockedService {

		@DistributedLock(key = "#id", lease = "40s")
		public String slow(String id) {
			return id;
		}

		@DistributedLock(key = "#id", name = "orders")
		public String order(String id) {
			return id;
		}

		@DistributedLock(key = "#id", lease = "5s")
		public String quick(String id) {
			return id;
		}

	}

}
