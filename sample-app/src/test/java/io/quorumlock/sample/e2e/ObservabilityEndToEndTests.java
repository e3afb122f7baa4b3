package io.quorumlock.sample.e2e;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Observability end to end: a real web server, real Redis masters, Prometheus scraping.
 * Grants, a timeout and a lost lease show up in {@code /actuator/prometheus}; a held
 * lease in {@code /actuator/locks}; the {@code distributedLock} health goes DOWN when a
 * majority of masters dies and UP again once they are back and the restart guard lets
 * them vote. A node URI with a password never shows it.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
// @SpringBootTest turns metrics export (and so /actuator/prometheus) off unless asked
@AutoConfigureObservability
@SpringBootTest(classes = ObservabilityEndToEndTests.App.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=health,locks,prometheus",
				"management.endpoint.health.show-details=always", "quorumlock.rejoin-delay=2s",
				// the restart guard must cover every lease in use
				"quorumlock.lease=2s",
				// not a test of timeouts: room for a loaded machine's answers
				"quorumlock.node-timeout=500ms", "sample.embedded-redis.enabled=false",
				// Boot's redis indicator would ping spring.data.redis (localhost:6379),
				// not ours
				"management.health.redis.enabled=false" })
class ObservabilityEndToEndTests {

	static final String PASSWORD = "s3cret-e2e-pw";

	@RegisterExtension
	static final RedisServers redis = RedisServers.builder()
		.nodes(3)
		.args("--user", "app", "on", ">" + PASSWORD, "~*", "&*", "+@all")
		.build();

	@DynamicPropertySource
	static void nodes(DynamicPropertyRegistry registry) {
		// the first master is reached as an ACL user with a password
		registry.add("quorumlock.nodes[0]",
				() -> "redis://app:" + PASSWORD + "@" + redis.node(0).host() + ":" + redis.node(0).port());
		registry.add("quorumlock.nodes[1]", () -> redis.node(1).uri());
		registry.add("quorumlock.nodes[2]", () -> redis.node(2).uri());
	}

	@LocalServerPort
	int port;

	@Autowired
	DistributedLockRegistry locks;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@Test
	void metricsLocksAndHealthTellTheStory() throws Exception {
		// fresh masters: the restart guard (2 s here) holds them back at first
		await().atMost(Duration.ofSeconds(15))
			.until(() -> get("/actuator/health").contains("\"distributedLock\":{\"status\":\"UP\""));

		// grants through the annotated method
		for (int i = 0; i < 3; i++) {
			assertThat(post("/work/order-4242" + i).statusCode()).isEqualTo(200);
		}
		// a timeout: the key is held elsewhere and the method does not wait
		try (Lease held = this.locks.acquire(LockRequest.of("order-contended").name("work"))) {
			assertThat(post("/work/order-contended").statusCode()).isEqualTo(409);
		}
		// a lost lease
		Lease lost = this.locks
			.acquire(LockRequest.of("order-lost").label("e2e.lost").lease(Duration.ofMillis(1600)).renew(false));
		await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isValid());
		lost.releaseAsync();

		String prometheus = get("/actuator/prometheus");
		assertThat(prometheus)
			.containsPattern("distributed_lock_wait_seconds_bucket\\{[^}]*lock=\"work\"[^}]*outcome=\"acquired\"")
			.containsPattern(
					"distributed_lock_wait_seconds_count\\{[^}]*lock=\"work\"[^}]*outcome=\"timeout\"[^}]*\\} 1(\\.0)?\n")
			.contains("distributed_lock_held_seconds_count")
			.contains("distributed_lock_active")
			.containsPattern("distributed_lock_lost_total\\{[^}]*lock=\"e2e.lost\"[^}]*\\} 1\\.0")
			// per master: its state, and how it answered
			.containsPattern("distributed_lock_node_state\\{[^}]*node=\"127.0.0.1:" + redis.node(0).port()
					+ "\"[^}]*state=\"voting\"[^}]*\\} 1\\.0")
			.containsPattern("distributed_lock_node_answers_total\\{[^}]*node=\"127.0.0.1:" + redis.node(0).port()
					+ "\"[^}]*outcome=\"yes\"[^}]*\\} [1-9]")
			.doesNotContain("order-4242")
			.doesNotContain("order-contended");

		// a lease shows while the method runs
		App.inside = new CountDownLatch(1);
		App.proceed = new CountDownLatch(1);
		CompletableFuture<HttpResponse<String>> running = this.http.sendAsync(
				request("/work/held").POST(HttpRequest.BodyPublishers.noBody()).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(App.inside.await(10, TimeUnit.SECONDS)).isTrue();
		String locksJson = get("/actuator/locks");
		assertThat(locksJson).contains("\"mode\":\"quorum\"")
			.contains("lock:work:{held}")
			.contains("\"lock\":\"work\"")
			.contains("\"state\":\"voting\"")
			.contains("\"answers\":{\"yes\":")
			.containsPattern("\"recentFailures\":\\[\\{\"lock\":\"[^\"]+\",\"outcome\":\"");
		App.proceed.countDown();
		assertThat(running.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

		// no password anywhere an operator looks
		String health = get("/actuator/health");
		assertThat(locksJson).doesNotContain(PASSWORD);
		assertThat(health).doesNotContain(PASSWORD).contains(redis.node(0).port() + "");

		// force-unlock is absent by default
		HttpResponse<String> delete = this.http.send(request("/actuator/locks/lock:work:%7Bx%7D").DELETE().build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(delete.statusCode()).isIn(404, 405);

		// a majority dies: DOWN; it comes back and, after the guard, votes again: UP
		redis.node(1).kill();
		redis.node(2).kill();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> get("/actuator/health").contains("\"distributedLock\":{\"status\":\"DOWN\""));
		redis.node(1).restart();
		redis.node(2).restart();
		await().atMost(Duration.ofSeconds(20))
			.until(() -> get("/actuator/health").contains("\"distributedLock\":{\"status\":\"UP\""));
	}

	private HttpRequest.Builder request(String path) {
		return HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(10));
	}

	private String get(String path) throws Exception {
		return this.http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
	}

	private HttpResponse<String> post(String path) throws Exception {
		return this.http.send(request(path).POST(HttpRequest.BodyPublishers.noBody()).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(App.WorkController.class)
	static class App {

		static volatile CountDownLatch inside = new CountDownLatch(0);

		static volatile CountDownLatch proceed = new CountDownLatch(0);

		@RestController
		static class WorkController {

			@PostMapping("/work/{id}")
			@DistributedLock(key = "#id", name = "work", lease = "2s", waitAtMost = "0s")
			String work(@PathVariable String id) throws InterruptedException {
				if ("held".equals(id)) {
					inside.countDown();
					proceed.await(10, TimeUnit.SECONDS);
				}
				return "done " + id;
			}

			@ExceptionHandler(LockNotAcquiredException.class)
			@ResponseStatus(HttpStatus.CONFLICT)
			String busy(LockNotAcquiredException ex) {
				return ex.getMessage();
			}

		}

	}

}
