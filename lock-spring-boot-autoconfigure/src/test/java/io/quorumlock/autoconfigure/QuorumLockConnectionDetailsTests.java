package io.quorumlock.autoconfigure;

import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactory;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.util.ClassUtils;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link QuorumLockConnectionDetails}: beans of it choose quorum mode and its nodes,
 * ahead of {@code quorumlock.nodes}; and the Testcontainers factory behind them stays out
 * of the way of an application without Testcontainers. Boot-neutral: rerun on Boot 4.0
 * and 4.1 (with Testcontainers 2) by the Boot 4 test modules.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuorumLockConnectionDetailsTests {

	private static final String FACTORY = "io.quorumlock.autoconfigure.QuorumLockContainerConnectionDetailsFactory";

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.REDIS, QuorumLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.rejoin-delay=0s", BoundedWait.NODE_TIMEOUT);

	@Test
	void connectionDetailsBeanChoosesQuorumModeOnItsNodes() {
		this.runner.withBean(QuorumLockConnectionDetails.class, () -> redis::uris).run((context) -> {
			assertThat(context).hasNotFailed();
			QuorumLockEngine engine = context.getBean(QuorumLockEngine.class);
			assertThat(engine.mode()).isEqualTo("quorum");
			assertThat(engine.nodeAddresses()).containsExactlyElementsOf(addresses());
			try (Lease lease = context.getBean(DistributedLockRegistry.class).acquire(LockRequest.of("details"))) {
				assertThat(lease.isValid()).isTrue();
				// granted at a quorum: the third node's SET may land just after
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(redis.nodes())
						.allSatisfy((node) -> assertThat(node.exists("lock:{details}")).isTrue()));
			}
		});
	}

	@Test
	void connectionDetailsTakePrecedenceOverQuorumlockNodes() {
		this.runner.withPropertyValues("quorumlock.nodes=redis://127.0.0.1:1")
			.withBean(QuorumLockConnectionDetails.class, () -> redis::uris)
			.run((context) -> assertThat(context.getBean(QuorumLockEngine.class).nodeAddresses())
				.containsExactlyElementsOf(addresses()));
	}

	@Test
	void nodesOfEveryConnectionDetailsBeanAreJoinedWithoutRepeats() {
		List<String> uris = redis.uris();
		this.runner.withBean("first", QuorumLockConnectionDetails.class, () -> () -> uris.subList(0, 2))
			.withBean("second", QuorumLockConnectionDetails.class, () -> () -> uris.subList(1, 3))
			.run((context) -> assertThat(context.getBean(QuorumLockEngine.class).nodeAddresses())
				.containsExactlyElementsOf(addresses()));
	}

	@Test
	void withoutConnectionDetailsOrNodesSingleModeRunsAsBefore() {
		this.runner.withPropertyValues("spring.data.redis.url=" + redis.node(0).uri())
			.run((context) -> assertThat(context.getBean(QuorumLockEngine.class).mode()).isEqualTo("single"));
	}

	@Test
	void applicationWithoutTestcontainersStartsAndLocks() {
		this.runner
			.withClassLoader(new FilteredClassLoader("org.testcontainers", "org.springframework.boot.testcontainers"))
			.withPropertyValues("spring.data.redis.url=" + redis.node(0).uri())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				try (Lease lease = context.getBean(DistributedLockRegistry.class).acquire(LockRequest.of("plain"))) {
					assertThat(lease.isValid()).isTrue();
				}
			});
	}

	@Test
	void factoryIsSkippedNotFatalWhenTestcontainersIsMissing() throws Exception {
		// our classes (a directory here, the jar on Boot 4) defined by a loader of their
		// own, above one that hides Testcontainers
		FilteredClassLoader hidden = new FilteredClassLoader("org.testcontainers",
				"org.springframework.boot.testcontainers", FACTORY);
		URL classes = QuorumLockConnectionDetails.class.getProtectionDomain().getCodeSource().getLocation();
		try (URLClassLoader withoutTestcontainers = new URLClassLoader(new URL[] { classes }, hidden)) {
			List<String> failed = new ArrayList<>();
			List<ConnectionDetailsFactory> loaded = SpringFactoriesLoader
				.forDefaultResourceLocation(withoutTestcontainers)
				.load(ConnectionDetailsFactory.class, (type, name, failure) -> failed.add(name));
			assertThat(failed).contains(FACTORY);
			assertThat(loaded).noneMatch((factory) -> factory.getClass().getName().equals(FACTORY));
			assertThatNoException().isThrownBy(() -> new ConnectionDetailsFactories(withoutTestcontainers));
		}
	}

	@Test
	void factoryLoadsWhenTestcontainersIsPresent() {
		// this module's tests have both; a build rerunning them without says so
		assumeThat(ClassUtils.isPresent(
				"org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory", null)
				&& ClassUtils.isPresent("org.testcontainers.containers.Container", null))
			.as("Testcontainers and spring-boot-testcontainers on the test class path")
			.isTrue();
		List<String> failed = new ArrayList<>();
		List<ConnectionDetailsFactory> present = SpringFactoriesLoader
			.forDefaultResourceLocation(getClass().getClassLoader())
			.load(ConnectionDetailsFactory.class, (type, name, failure) -> failed.add(name));
		assertThat(failed).doesNotContain(FACTORY);
		assertThat(present).anyMatch((factory) -> factory.getClass().getName().equals(FACTORY));
	}

	private static List<String> addresses() {
		return redis.nodes().stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

}
