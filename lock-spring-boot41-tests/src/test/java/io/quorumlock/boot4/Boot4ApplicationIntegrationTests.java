package io.quorumlock.boot4;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.actuate.ObservedLockRegistry;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fresh Spring Boot 4 web application with the starter, actuator and the Prometheus
 * registry, everything auto-configured as a user gets it, over HTTP: the aspect, the
 * {@code distributedLock} health, the {@code distributed.lock.*} meters and the
 * acquisition observation in the Prometheus scrape, {@code /actuator/locks} with and
 * without the optional {@code ?leaks}, and the force-unlock; in single mode and in quorum
 * mode.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Boot4ApplicationIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@Test
	void singleModeApplicationServesLocksHealthMetricsAndEndpoint() throws Exception {
		try (ConfigurableApplicationContext context = start("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + redis.node(0).port())) {
			assertThat(SpringBootVersion.getVersion()).startsWith("4.");
			assertThat(context.getBean(Orders.class).pay("42")).isEqualTo("paid 42");
			assertThat(context.getBean(DistributedLockRegistry.class)).isInstanceOf(ObservedLockRegistry.class);

			HttpResponse<String> health = get(context, "/actuator/health/distributedLock");
			assertThat(health.statusCode()).isEqualTo(200);
			assertThat(health.body()).contains("\"status\":\"UP\"")
				.contains("\"mode\":\"single\"")
				.contains("\"state\":\"voting\"");

			HttpResponse<String> prometheus = get(context, "/actuator/prometheus");
			assertThat(prometheus.statusCode()).isEqualTo(200);
			assertThat(prometheus.body()).contains("distributed_lock_wait_seconds_count{")
				.contains("distributed_lock_held_seconds_count{")
				.contains("distributed_lock_active")
				.contains("distributed_lock_acquire_seconds_count{")
				.contains("distributed_lock_node_state{")
				.contains("distributed_lock_node_answers_total{");

			HttpResponse<String> locks = get(context, "/actuator/locks");
			assertThat(locks.statusCode()).as(locks.body()).isEqualTo(200);
			assertThat(locks.body()).contains("\"mode\":\"single\"")
				.doesNotContain("keysWithoutTtl\":[")
				.contains("\"state\":\"voting\"")
				.contains("\"answers\":{\"yes\":")
				.contains("\"recentFailures\":[");

			redis.node(0).call("SET", "lock:{leaked}", "x");
			HttpResponse<String> leaks = get(context, "/actuator/locks?leaks=true");
			assertThat(leaks.statusCode()).as(leaks.body()).isEqualTo(200);
			assertThat(leaks.body()).contains("lock:{leaked}");

			Lease held = context.getBean(DistributedLockRegistry.class)
				.acquire(LockRequest.of("stuck").renew(false).waitAtMost(Duration.ofSeconds(10)));
			assertThat(redis.node(0).exists("lock:{stuck}")).isTrue();
			HttpResponse<String> unlocked = this.http.send(
					HttpRequest.newBuilder(uri(context, "/actuator/locks/lock:%7Bstuck%7D")).DELETE().build(),
					HttpResponse.BodyHandlers.ofString());
			assertThat(unlocked.statusCode()).as(unlocked.body()).isEqualTo(200);
			assertThat(unlocked.body()).contains("\"deletedOnNodes\":1");
			assertThat(redis.node(0).exists("lock:{stuck}")).isFalse();
			held.releaseAsync();
		}
		finally {
			redis.node(0).call("DEL", "lock:{leaked}");
		}
	}

	@Test
	void quorumModeApplicationReportsTheQuorumAndEachNode() throws Exception {
		try (ConfigurableApplicationContext context = start("quorumlock.nodes=" + String.join(",", redis.uris()),
				"quorumlock.rejoin-delay=0s")) {
			assertThat(context.getBean(Orders.class).pay("7")).isEqualTo("paid 7");
			HttpResponse<String> health = get(context, "/actuator/health/distributedLock");
			assertThat(health.statusCode()).isEqualTo(200);
			assertThat(health.body()).contains("\"status\":\"UP\"")
				.contains("\"quorum\":")
				.contains("\"node-1\":")
				.contains("\"node-3\":");
			HttpResponse<String> locks = get(context, "/actuator/locks");
			assertThat(locks.statusCode()).as(locks.body()).isEqualTo(200);
			assertThat(locks.body()).contains("\"mode\":\"quorum\"");
			assertThat(get(context, "/actuator/prometheus").body()).contains("distributed_lock_wait_seconds_count{");
		}
	}

	private ConfigurableApplicationContext start(String... properties) {
		return new SpringApplicationBuilder(App.class)
			.properties("server.port=0", "server.address=127.0.0.1",
					"management.endpoints.web.exposure.include=health,locks,prometheus",
					"management.endpoint.health.show-details=always", "management.health.redis.enabled=false",
					"management.endpoint.locks.access=unrestricted", "quorumlock.node-timeout=1s")
			.properties(properties)
			.run();
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(context, path)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private static URI uri(ConfigurableApplicationContext context, String path) {
		return URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + path);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		Orders orders() {
			return new Orders();
		}

	}

	/** A service with an annotated method. */
	static class Orders {

		@DistributedLock(key = "#id", name = "payments", waitAtMost = "10s")
		public String pay(String id) {
			return "paid " + id;
		}

	}

}
