package io.quorumlock.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.util.ReflectionUtils;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.actuate.LocksEndpoint;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A master that cannot be reached says why, in the server's or the transport's own words,
 * everywhere an operator looks: the WARN of its state change, its {@code lastError},
 * {@code state} and {@code since} in the {@code locks} endpoint, and the same in the
 * {@code distributedLock} health details (read through the contributor bean, by the
 * method names Boot 3 and Boot 4 share); never with its password. A wrong password, a
 * password changed on the server while connected, a refused port and a TLS handshake that
 * fails, each on real servers.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class NodeFailureReportIntegrationTests {

	private static final String PASSWORD = "Vx9-pass-Rt4";

	@RegisterExtension
	static final RedisServers redis = RedisServers.builder().nodes(3).password(PASSWORD).build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class,
				LocksEndpointAutoConfiguration.class, DistributedLockHealthContributorAutoConfiguration.class))
		.withConfiguration(ObservabilityContexts.ACTUATOR)
		.withPropertyValues("management.endpoints.web.exposure.include=locks", "quorumlock.rejoin-delay=0s",
				"quorumlock.node-timeout=1s");

	@Test
	void wrongPasswordIsLoggedShownByTheEndpointAndHealthWithoutThePassword(CapturedOutput output) {
		String address = "127.0.0.1:" + redis.node(2).port();
		this.runner.withPropertyValues(join(node(0, PASSWORD), node(1, PASSWORD), node(2, "wrong-" + PASSWORD)))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				await().atMost(Duration.ofSeconds(20))
					.untilAsserted(() -> assertThat(output)
						.contains("quorumlock: master " + address + " is not connected, last attempt: WRONGPASS "));
				LocksEndpoint.NodeDescriptor node = endpointNode(context, 2);
				assertThat(node.address()).isEqualTo(address);
				assertThat(node.state()).isEqualTo("down");
				assertThat(node.lastError()).startsWith("not connected, last attempt: WRONGPASS");
				assertThat(node.since()).isNotNull();
				assertThat(endpointNode(context, 0).state()).isEqualTo("voting");
				assertThat(endpointNode(context, 0).lastError()).isNull();
				Map<String, Object> health = healthDetails(context, "node-3");
				assertThat(health).containsEntry("state", "down").containsKey("since");
				assertThat((String) health.get("lastError")).contains("WRONGPASS");
				String everything = output.getAll() + context.getBean(LocksEndpoint.class).locks(null) + health
						+ healthDetails(context, "node-1") + healthDetails(context, "quorum");
				assertThat(everything).doesNotContain(PASSWORD);
			});
	}

	@Test
	void passwordRotatedWhileConnectedIsLoggedAndShownByTheEndpointAndHealth(CapturedOutput output) {
		String address = "127.0.0.1:" + redis.node(0).port();
		String user = "rotating";
		redis.node(0).call("ACL", "SETUSER", user, "on", ">" + PASSWORD, "~*", "&*", "+@all");
		try {
			this.runner
				.withPropertyValues(join(node(0, PASSWORD), node(1, PASSWORD), node(2, PASSWORD),
						new String[] { "quorumlock.nodes[0].username=" + user }))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					await().atMost(Duration.ofSeconds(20))
						.untilAsserted(() -> assertThat(endpointNode(context, 0).state()).isEqualTo("voting"));
					// the password changes on the server and its connections drop:
					// Lettuce's
					// own reconnect attempts now fail, and say why
					redis.node(0).call("ACL", "SETUSER", user, "resetpass", ">rotated-" + PASSWORD);
					redis.node(0).call("CLIENT", "KILL", "USER", user);
					await().atMost(Duration.ofSeconds(20))
						.untilAsserted(() -> assertThat(output)
							.contains("quorumlock: master " + address + " is not connected, last attempt: WRONGPASS "));
					assertThat(endpointNode(context, 0).state()).isEqualTo("down");
					assertThat(endpointNode(context, 0).lastError())
						.startsWith("not connected, last attempt: WRONGPASS");
					assertThat((String) healthDetails(context, "node-1").get("lastError")).contains("WRONGPASS");
					assertThat(output.getAll()).doesNotContain(PASSWORD);
				});
		}
		finally {
			redis.node(0).call("ACL", "DELUSER", user);
		}
	}

	@Test
	void refusedPortIsLoggedShownByTheEndpointAndHealthAndTheFailureIsKept(CapturedOutput output) {
		int closed = closedPort();
		this.runner
			.withPropertyValues(join(node(0, PASSWORD),
					new String[] { "quorumlock.nodes[1].uri=redis://127.0.0.1:" + closed,
							"quorumlock.nodes[2].uri=redis://127.0.0.1:" + closedPort() }))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				await().atMost(Duration.ofSeconds(20))
					.untilAsserted(() -> assertThat(output).containsPattern("quorumlock: master 127.0.0.1:" + closed
							+ " is not connected, last attempt: [^;\\n]*Connection refused"));
				assertThat(endpointNode(context, 1).lastError()).contains("Connection refused");
				assertThat(endpointNode(context, 1).state()).isEqualTo("down");
				assertThat((String) healthDetails(context, "node-2").get("lastError")).contains("Connection refused");
				// a caller is refused: the endpoint keeps the whole story
				assertThatExceptionOfType(QuorumUnavailableException.class)
					.isThrownBy(() -> context.getBean(DistributedLockRegistry.class)
						.acquire(LockRequest.of("refused").name("orders")));
				assertThat(context.getBean(LocksEndpoint.class).locks(null).recentFailures()).singleElement()
					.satisfies((failure) -> {
						assertThat(failure.lock()).isEqualTo("orders");
						assertThat(failure.outcome()).isEqualTo("quorum_unavailable");
						assertThat(failure.count()).isOne();
						assertThat(failure.message()).contains("127.0.0.1:" + closed + ": not connected")
							.contains("Connection refused");
					});
				assertThat(output.getAll()).doesNotContain(PASSWORD);
			});
	}

	@Test
	void tlsHandshakeThatFailsIsLoggedShownByTheEndpointAndHealth(CapturedOutput output) {
		assumeTrue(RedisServers.binarySupportsTls(), "the redis-server in use was built without TLS");
		TestCertificates certificates = TestCertificates.generate();
		try (RedisServers tls = RedisServers.builder()
			.tls(certificates.certificate(), certificates.privateKey(), certificates.caCertificate())
			.build()
			.start()) {
			String address = "127.0.0.1:" + tls.node(0).tlsPort();
			// the JDK's trust store does not know the test's CA
			this.runner
				.withPropertyValues(join(node(0, PASSWORD), node(1, PASSWORD),
						new String[] { "quorumlock.nodes[2].uri=" + tls.node(0).tlsUri() }))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					await().atMost(Duration.ofSeconds(20))
						.untilAsserted(() -> assertThat(output).containsPattern("quorumlock: master " + address
								+ " is not connected, last attempt: [^;\\n]*unable to find valid certification path"));
					assertThat(endpointNode(context, 2).lastError())
						.contains("unable to find valid certification path");
					assertThat((String) healthDetails(context, "node-3").get("lastError"))
						.contains("unable to find valid certification path");
				});
		}
	}

	private static String[] node(int index, String password) {
		return new String[] { "quorumlock.nodes[" + index + "].uri=redis://127.0.0.1:" + redis.node(index).port(),
				"quorumlock.nodes[" + index + "].password=" + password };
	}

	private static String[] join(String[]... parts) {
		return Arrays.stream(parts).flatMap(Arrays::stream).toArray(String[]::new);
	}

	private static LocksEndpoint.NodeDescriptor endpointNode(AssertableApplicationContext context, int index) {
		return context.getBean(LocksEndpoint.class).locks(null).nodes().get(index);
	}

	/**
	 * A member's health details, through the methods Boot 3 and Boot 4 share
	 * ({@code getContributor}, {@code health}, {@code getDetails}).
	 */
	@SuppressWarnings("unchecked")
	static Map<String, Object> healthDetails(AssertableApplicationContext context, String member) {
		Object composite = context.getBean("distributedLockHealthContributor");
		Object indicator = call(composite, "getContributor", member);
		Object health = call(indicator, "health");
		return (Map<String, Object>) call(health, "getDetails");
	}

	private static Object call(Object target, String name, Object... args) {
		Class<?>[] types = new Class<?>[args.length];
		for (int i = 0; i < args.length; i++) {
			types[i] = args[i].getClass();
		}
		Method method = ReflectionUtils.findMethod(target.getClass(), name, types);
		assertThat(method).as(name + " on " + target.getClass()).isNotNull();
		ReflectionUtils.makeAccessible(method);
		return ReflectionUtils.invokeMethod(method, target, args);
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
