package io.quorumlock.sample.e2e;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Force-unlock over HTTP when {@code management.endpoint.locks.access=unrestricted}, in
 * single mode on the application's {@code spring.data.redis} server: {@code DELETE
 * /actuator/locks/{key}} deletes a key that another holder still has, says on how many
 * nodes, logs the key at WARN, and refuses a key outside the prefix with 400.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(classes = ForceUnlockEndToEndTests.App.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=health,locks",
				"management.endpoint.locks.access=unrestricted", "quorumlock.node-timeout=1s",
				"sample.embedded-redis.enabled=false" })
class ForceUnlockEndToEndTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", () -> redis.node(0).host());
		registry.add("spring.data.redis.port", () -> redis.node(0).port());
	}

	@LocalServerPort
	int port;

	@Autowired
	DistributedLockRegistry locks;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@Test
	void deleteForcesTheLockOpenAndIsAudited(CapturedOutput output) throws Exception {
		Lease stuck = this.locks
			.acquire(LockRequest.of("42").name("orders").renew(false).waitAtMost(Duration.ofSeconds(10)));
		assertThat(redis.node(0).exists("lock:orders:{42}")).isTrue();
		assertThat(get("/actuator/locks")).contains("lock:orders:{42}");

		HttpResponse<String> delete = delete("/actuator/locks/lock:orders:%7B42%7D");
		assertThat(delete.statusCode()).isEqualTo(200);
		assertThat(delete.body()).contains("\"key\":\"lock:orders:{42}\"").contains("\"deletedOnNodes\":1");
		assertThat(redis.node(0).exists("lock:orders:{42}")).isFalse();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> output.getAll()
				.lines()
				.anyMatch(
						(line) -> line.contains("WARN") && line.contains("force-unlock of lock key lock:orders:{42}")));

		assertThat(delete("/actuator/locks/elsewhere:%7B42%7D").statusCode()).isEqualTo(400);
		stuck.releaseAsync();
	}

	@Test
	void aKeyWithASlashIsForcedOpenByItsEncodedQueryParameter() throws Exception {
		Lease stuck = this.locks
			.acquire(LockRequest.of("reports/2026").name("files").renew(false).waitAtMost(Duration.ofSeconds(10)));
		assertThat(redis.node(0).exists("lock:files:{reports/2026}")).isTrue();
		String encoded = URLEncoder.encode("lock:files:{reports/2026}", StandardCharsets.UTF_8);
		assertThat(encoded).contains("%2F");

		HttpResponse<String> delete = delete("/actuator/locks?key=" + encoded);
		assertThat(delete.statusCode()).isEqualTo(200);
		assertThat(delete.body()).contains("\"key\":\"lock:files:{reports/2026}\"").contains("\"deletedOnNodes\":1");
		assertThat(redis.node(0).exists("lock:files:{reports/2026}")).isFalse();
		assertThat(delete("/actuator/locks?key=" + URLEncoder.encode("elsewhere:{a/b}", StandardCharsets.UTF_8))
			.statusCode()).isEqualTo(400);
		assertThat(delete("/actuator/locks").statusCode()).as("no key").isEqualTo(400);
		stuck.releaseAsync();
	}

	@Test
	void aKeyWithASlashIsForcedOpenWithTheSlashWrittenAsItIsInThePath() throws Exception {
		Lease stuck = this.locks
			.acquire(LockRequest.of("a/b").name("files").renew(false).waitAtMost(Duration.ofSeconds(10)));
		HttpResponse<String> delete = delete("/actuator/locks/lock:files:%7Ba/b%7D");
		assertThat(delete.statusCode()).isEqualTo(200);
		assertThat(redis.node(0).exists("lock:files:{a/b}")).isFalse();
		stuck.releaseAsync();
	}

	private HttpRequest.Builder request(String path) {
		return HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(10));
	}

	private String get(String path) throws Exception {
		return this.http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
	}

	private HttpResponse<String> delete(String path) throws Exception {
		return this.http.send(request(path).DELETE().build(), HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
