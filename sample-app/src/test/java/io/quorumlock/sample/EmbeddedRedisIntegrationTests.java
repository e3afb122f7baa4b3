package io.quorumlock.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.quorumlock.sample.embedded.EmbeddedRedisListener;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample started with no configuration at all (only a free HTTP port): it runs its
 * own three Redis masters, pays an order in quorum mode, and stops the masters when it
 * closes.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EmbeddedRedisIntegrationTests {

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@Test
	void startsItsOwnMastersPaysAnOrderAndStopsThemOnClose() throws Exception {
		List<Long> pids;
		List<URI> nodes;
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.run("--server.port=0")) {
			Environment environment = context.getEnvironment();
			nodes = Arrays.stream(environment.getRequiredProperty("quorumlock.nodes").split(","))
				.map(URI::create)
				.toList();
			pids = Arrays.stream(environment.getRequiredProperty(EmbeddedRedisListener.PIDS).split(","))
				.map(Long::valueOf)
				.toList();
			assertThat(nodes).hasSize(3).allSatisfy((node) -> assertThat(node.getHost()).isEqualTo("127.0.0.1"));
			assertThat(pids).hasSize(3).allSatisfy((pid) -> assertThat(isAlive(pid)).isTrue());
			assertThat(environment.getProperty("quorumlock.rejoin-delay")).isEqualTo("0s");
			String base = "http://localhost:" + environment.getRequiredProperty("local.server.port");
			assertThat(send("PUT", base + "/orders/zero-setup").statusCode()).isEqualTo(200);
			// on a loaded machine a master may miss the default 50 ms node timeout: a 503
			// charges nothing (no lock, no write), so a client simply tries again
			HttpResponse<String> paid = send("POST", base + "/orders/zero-setup/pay");
			for (int attempt = 1; attempt < 5 && paid.statusCode() == 503; attempt++) {
				paid = send("POST", base + "/orders/zero-setup/pay");
			}
			assertThat(paid.statusCode()).as(paid.body()).isEqualTo(200);
			assertThat(send("POST", base + "/orders/zero-setup/pay").statusCode()).isEqualTo(409);
		}
		assertThat(pids).allSatisfy((pid) -> assertThat(isAlive(pid)).as("redis-server pid %d", pid).isFalse());
		assertThat(nodes).allSatisfy((node) -> assertThat(accepts(node)).as("%s", node).isFalse());
	}

	private static boolean isAlive(long pid) {
		return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
	}

	private static boolean accepts(URI node) {
		try (java.net.Socket socket = new java.net.Socket()) {
			socket.connect(new java.net.InetSocketAddress(node.getHost(), node.getPort()), 500);
			return true;
		}
		catch (java.io.IOException ex) {
			return false;
		}
	}

	private HttpResponse<String> send(String method, String url) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(url))
			.timeout(Duration.ofSeconds(60))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
