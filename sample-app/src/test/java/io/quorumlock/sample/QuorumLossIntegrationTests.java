package io.quorumlock.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With a majority of masters down, a locked endpoint answers with the starter's default
 * problem detail (503, Retry-After, the lock and the reason category without any master's
 * host or port), not a bare 500; and the application's health shows the lock quorum DOWN
 * without a Spring Data Redis check of a connection the locks do not use.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis.enabled=false", "quorumlock.rejoin-delay=0s",
				"sample.processing-delay=0ms", "quorumlock.node-timeout=500ms",
				"quorumlock.instances.orders.wait-at-most=0s" })
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuorumLossIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	@DynamicPropertySource
	static void redisNodes(DynamicPropertyRegistry registry) {
		registry.add("quorumlock.nodes", () -> String.join(",", redis.uris()));
	}

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@LocalServerPort
	private int port;

	@Test
	void payWithAMajorityOfMastersDownIsAProblemDetail503WithRetryAfter() throws Exception {
		assertThat(send("PUT", "/orders/quorum-loss?amountCents=100").statusCode()).isEqualTo(200);
		redis.node(1).kill();
		redis.node(2).kill();
		await().atMost(Duration.ofSeconds(30)).until(() -> send("POST", "/orders/quorum-loss/pay").statusCode() == 503);
		HttpResponse<String> response = send("POST", "/orders/quorum-loss/pay");
		assertThat(response.statusCode()).isEqualTo(503);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(response.body()).contains("\"title\":\"Lock quorum unavailable\"", "\"status\":503",
				"no quorum: masters not connected");
		// the caller learns the category, not the topology: no master's host or port
		for (int i = 0; i < redis.size(); i++) {
			assertThat(response.body()).doesNotContain(":" + redis.node(i).port());
		}
		assertThat(response.body()).doesNotContain("127.0.0.1", "last attempt");
		HttpResponse<String> health = send("GET", "/actuator/health");
		assertThat(health.statusCode()).isEqualTo(503);
		assertThat(health.body()).contains("\"distributedLock\"").doesNotContain("\"redis\"");
	}

	private HttpResponse<String> send(String method, String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(60))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
