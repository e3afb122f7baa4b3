package io.quorumlock.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nothing is silent at start-up: a misspelt {@code quorumlock.*} property stops it with
 * the nearest valid name, and one INFO line says which mode, nodes, quorum, node timeout
 * and restart guard the starter chose. No Redis runs here: the nodes are closed loopback
 * ports.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class StartupReportTests {

	private static final int PORT_A = closedPort();

	private static final int PORT_B = closedPort();

	private static final int PORT_C = closedPort();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.REDIS, QuorumLockAutoConfiguration.class));

	@Test
	void runWhenNodesIsMisspeltShouldFailNamingTheNearestProperty() {
		this.runner.withPropertyValues("quorumlock.node=redis://127.0.0.1:" + PORT_A).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new UnknownQuorumLockPropertyFailureAnalyzer(null)
				.analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("'quorumlock.node'")
				.contains("is not a quorumlock property; did you mean 'quorumlock.nodes'?");
			assertThat(analysis.getAction()).contains("quorumlock.nodes", "quorumlock.rejoin-delay");
		});
	}

	@Test
	void runWhenAnInstancePropertyIsMisspeltShouldFailNamingTheNearestProperty() {
		this.runner
			.withPropertyValues("quorumlock.nodes[0]=redis://127.0.0.1:" + PORT_A,
					"quorumlock.instances.orders.leese=10s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(cause(context.getStartupFailure())).isNotNull();
				assertThat(new UnknownQuorumLockPropertyFailureAnalyzer(null).analyze(context.getStartupFailure())
					.getDescription()).contains("'quorumlock.instances.orders.leese'")
					.contains("did you mean 'quorumlock.instances.orders.lease'?");
			});
	}

	@Test
	void runWhenAGlobalLockOptionIsMisspeltShouldFailNamingIt() {
		this.runner.withPropertyValues("quorumlock.nodes[0]=redis://127.0.0.1:" + PORT_A, "quorumlock.wait-at-mots=2s")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new UnknownQuorumLockPropertyFailureAnalyzer(null)
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("did you mean 'quorumlock.wait-at-most'?");
				assertThat(analysis.getAction()).contains("quorumlock.wait-at-most", "quorumlock.lease",
						"quorumlock.renew", "quorumlock.hold-at-most", "quorumlock.hold-at-least",
						"quorumlock.on-lease-lost", "quorumlock.problem-details.verbose",
						"quorumlock.fresh-master-run-ids", "quorumlock.nodes[i].uri", "quorumlock.nodes[i].password",
						"quorumlock.instances.<name>.wait-at-most", "quorumlock.retry-delay.min");
				assertThat(analysis.getAction()).doesNotContain("fresh-master-run-ids.", "fresh-master-run-ids[i].");
			});
	}

	@Test
	void runWhenAFieldOfANodeIsMisspeltShouldNameItWithItsIndex() {
		this.runner
			.withPropertyValues("quorumlock.nodes[0].uri=redis://127.0.0.1:" + PORT_A,
					"quorumlock.nodes[1].uri=redis://127.0.0.1:" + PORT_B, "quorumlock.nodes[1].usrname=app")
			.run((context) -> assertThat(
					new UnknownQuorumLockPropertyFailureAnalyzer(null).analyze(context.getStartupFailure())
						.getDescription())
				.contains("did you mean 'quorumlock.nodes[1].username'?"));
	}

	@Test
	void runWhenSeveralPropertiesAreMisspeltShouldNameThemAllAtOnce() {
		String[] properties = { "quorumlock.nodes[0].uri=redis://127.0.0.1:" + PORT_A,
				"quorumlock.nodes[0].pasword=secret", "quorumlock.wait-at-mots=2s",
				"quorumlock.instances.seats.wiat-at-most=1s", "quorumlock.instances.seats.lease=10s" };
		this.runner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			StandardEnvironment environment = new StandardEnvironment();
			TestPropertyValues.of(properties).applyTo(environment);
			FailureAnalysis analysis = new UnknownQuorumLockPropertyFailureAnalyzer(environment)
				.analyze(context.getStartupFailure());
			assertThat(analysis.getDescription())
				.contains("'quorumlock.nodes[0].pasword' (from \"quorumlock.nodes[0].pasword\" from property source "
						+ "\"test\") is not a quorumlock property; did you mean 'quorumlock.nodes[0].password'?")
				.contains(
						"'quorumlock.wait-at-mots' (from \"quorumlock.wait-at-mots\" from property source \"test\") is "
								+ "not a quorumlock property; did you mean 'quorumlock.wait-at-most'?")
				.contains("'quorumlock.instances.seats.wiat-at-most' (from \"quorumlock.instances.seats.wiat-at-most\" "
						+ "from property source \"test\") is not a quorumlock property; did you mean "
						+ "'quorumlock.instances.seats.wait-at-most'?")
				.doesNotContain("'quorumlock.nodes[0].uri'", "'quorumlock.instances.seats.lease'");
			assertThat(analysis.getAction()).startsWith("Rename 'quorumlock.instances.seats.wiat-at-most' to "
					+ "'quorumlock.instances.seats.wait-at-most' in \"quorumlock.instances.seats.wiat-at-most\" from "
					+ "property source \"test\"; 'quorumlock.nodes[0].pasword' to 'quorumlock.nodes[0].password' in ");
		});
	}

	@Test
	void everyValidPropertyInTheEnvironmentIsKnownWhateverItsForm() {
		StandardEnvironment environment = new StandardEnvironment();
		TestPropertyValues
			.of("quorumlock.nodes=redis://a:1,redis://b:1", "quorumlock.nodes[0]=redis://a:1",
					"quorumlock.nodes[1].uri=redis://b:1", "quorumlock.nodes[1].password=p",
					"quorumlock.instances.orders.wait-at-most=2s", "quorumlock.retry-delay=10ms..200ms",
					"quorumlock.retry-delay.min=10ms", "quorumlock.fresh-master-run-ids[0]=abc",
					"quorumlock.metrics.enabled=false", "quorumlock.fencing.counter-ttl=1h", "quorumlock.holdAtMost=1m",
					"quorumlock.wait-at-mots=1s")
			.applyTo(environment);
		// left out, as the binder leaves them: a system property or variable may hold
		// anything
		environment.getPropertySources()
			.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
					new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
							java.util.Map.of("QUORUMLOCK_WAITATMOTS", "1s")));
		environment.getPropertySources()
			.replace(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
					new org.springframework.core.env.PropertiesPropertySource(
							StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
							properties("quorumlock.test.redis-server", "/usr/bin/redis-server")));
		assertThat(new UnknownQuorumLockPropertyFailureAnalyzer(environment).unknownInEnvironment())
			.extracting((property) -> property.getName().toString())
			.containsExactly("quorumlock.wait-at-mots");
	}

	private static java.util.Properties properties(String name, String value) {
		java.util.Properties properties = new java.util.Properties();
		properties.setProperty(name, value);
		return properties;
	}

	@Test
	void validNamesAreEveryBoundPropertyWithListsAsLists() {
		assertThat(UnknownQuorumLockPropertyFailureAnalyzer.names())
			.contains("quorumlock.enabled", "quorumlock.key-prefix", "quorumlock.lease", "quorumlock.wait-at-most",
					"quorumlock.renew", "quorumlock.hold-at-most", "quorumlock.hold-at-least",
					"quorumlock.on-lease-lost", "quorumlock.nodes", "quorumlock.nodes[i].uri",
					"quorumlock.nodes[i].username", "quorumlock.nodes[i].password", "quorumlock.fresh-master-run-ids",
					"quorumlock.retry-delay", "quorumlock.retry-delay.min", "quorumlock.retry-delay.max",
					"quorumlock.instances.<name>.lease", "quorumlock.instances.<name>.hold-at-least",
					"quorumlock.fencing.counter-ttl", "quorumlock.ssl.bundle", "quorumlock.metrics.enabled",
					"quorumlock.problem-details.verbose", "quorumlock.actuator.force-unlock-enabled")
			.noneMatch((name) -> name.startsWith("quorumlock.fresh-master-run-ids."))
			.doesNotHaveDuplicates();
	}

	@Test
	void runInQuorumModeOnConnectionDetailsShouldNameThemNotTheNodesProperty(CapturedOutput output) {
		this.runner.withPropertyValues("quorumlock.nodes[0]=redis://127.0.0.1:" + PORT_C)
			.withBean("masters", QuorumLockConnectionDetails.class,
					() -> () -> java.util.List.of("redis://127.0.0.1:" + PORT_A, "redis://127.0.0.1:" + PORT_B,
							"redis://127.0.0.1:" + PORT_C))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("quorumlock: quorum mode on 3 masters [127.0.0.1:" + PORT_A + ", 127.0.0.1:"
						+ PORT_B + ", 127.0.0.1:" + PORT_C
						+ "] (QuorumLockConnectionDetails bean 'masters', in place of quorumlock.nodes), quorum 2");
			});
	}

	@Test
	void sourceOfTheMastersNamesATestcontainersServiceConnection() {
		assertThat(QuorumLockStartupLog.quorumSource(java.util.Map.of())).isEqualTo("quorumlock.nodes");
		java.util.Map<String, String> details = new java.util.LinkedHashMap<>();
		details.put("quorumLockConnectionDetailsForRedis1",
				"io.quorumlock.autoconfigure.QuorumLockContainerConnectionDetailsFactory$Masters");
		assertThat(QuorumLockStartupLog.quorumSource(details))
			.isEqualTo("Testcontainers service connection @ServiceConnection(name = \"quorumlock\")");
		details.put("extra", "com.example.Extra");
		assertThat(QuorumLockStartupLog.quorumSource(details)).isEqualTo(
				"Testcontainers service connection @ServiceConnection(name = \"quorumlock\") and QuorumLockConnectionDetails bean 'extra'");
	}

	@Test
	void sourceOfTheSingleModeServerNamesAServiceConnection() {
		assertThat(QuorumLockStartupLog.singleSource(null)).isEqualTo("spring.data.redis");
		assertThat(QuorumLockStartupLog.singleSource(new PropertiesLikeDetails())).isEqualTo("spring.data.redis");
		assertThat(QuorumLockStartupLog.singleSource(new OtherDetails()))
			.isEqualTo("Redis connection details StartupReportTests.OtherDetails");
	}

	/** Named as Boot names the details it reads from spring.data.redis. */
	static class PropertiesLikeDetails {

	}

	/** Connection details of the application's own. */
	static class OtherDetails {

	}

	@Test
	void runInQuorumModeShouldLogModeNodesQuorumTimeoutAndGuard(CapturedOutput output) {
		this.runner
			.withPropertyValues("quorumlock.nodes[0]=redis://127.0.0.1:" + PORT_A,
					"quorumlock.nodes[1]=redis://user:secret@127.0.0.1:" + PORT_B,
					"quorumlock.nodes[2]=redis://127.0.0.1:" + PORT_C, "quorumlock.lease=10s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("quorumlock: quorum mode on 3 masters [127.0.0.1:" + PORT_A + ", 127.0.0.1:"
						+ PORT_B + ", 127.0.0.1:" + PORT_C + "] (quorumlock.nodes), quorum 2, node-timeout 50ms, "
						+ "restart guard 10s (the longest declared lease): a master that lost its data does not "
						+ "vote for that long");
				assertThat(output).doesNotContain("secret");
			});
	}

	@Test
	void runInSingleModeShouldLogTheSpringDataRedisServer(CapturedOutput output) {
		this.runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + PORT_A)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("quorumlock: single mode on 127.0.0.1:" + PORT_A
						+ " (spring.data.redis; set quorumlock.nodes for a quorum of masters), node-timeout 1s (one "
						+ "node's default; set quorumlock.node-timeout to choose), no restart guard (single mode)");
			});
	}

	@Test
	void runOnOneListedNodeShouldSaySoNotSpringDataRedis(CapturedOutput output) {
		this.runner.withPropertyValues("quorumlock.nodes=redis://127.0.0.1:" + PORT_A).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("quorumlock: single mode on 127.0.0.1:" + PORT_A
					+ " (quorumlock.nodes lists one master; list three or more for a quorum), node-timeout 1s");
		});
	}

	@Test
	void runWhenMastersAreNotConnectedShouldSayItOnceEach(CapturedOutput output) {
		this.runner.withPropertyValues("quorumlock.nodes[0]=redis://127.0.0.1:" + PORT_A,
				"quorumlock.nodes[1]=redis://127.0.0.1:" + PORT_B, "quorumlock.nodes[2]=redis://127.0.0.1:" + PORT_C)
			.run((context) -> {
				org.awaitility.Awaitility.await()
					.atMost(java.time.Duration.ofSeconds(20))
					.untilAsserted(() -> assertThat(output).containsPattern("quorumlock: master 127.0.0.1:" + PORT_C
							+ " is not connected, last attempt: [^;\\n]*Connection refused[^;\\n]*; 0 of 3 masters vote "
							+ "now, a lock needs 2: locks fail until enough masters are back"));
				assertThat(count(output.getAll(), "quorumlock: master 127.0.0.1:" + PORT_C)).isOne();
			});
	}

	private static int count(String text, String part) {
		return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
	}

	private static UnboundConfigurationPropertiesException cause(Throwable failure) {
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (t instanceof UnboundConfigurationPropertiesException unbound) {
				return unbound;
			}
		}
		return null;
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
