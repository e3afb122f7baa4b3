package io.quorumlock.sample;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
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

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.etcd.EtcdLockRegistry;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample started with the {@code etcd} profile and nothing else: it runs its own
 * three etcd members, locks on them instead of Redis (no Redis master started), pays an
 * order once, and stops the members when it closes.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EmbeddedEtcdIntegrationTests {

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@Test
	void theEtcdProfileLocksOnItsOwnEtcdMembers() throws Exception {
		List<URI> endpoints;
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.profiles("etcd")
			.run("--server.port=0")) {
			Environment environment = context.getEnvironment();
			endpoints = Arrays.stream(environment.getRequiredProperty("quorumlock.etcd.endpoints").split(","))
				.map(URI::create)
				.toList();
			assertThat(endpoints).hasSize(3);
			assertThat(environment.getProperty("quorumlock.nodes")).isNull();
			assertThat(context.getBeansOfType(DistributedLockRegistry.class).values())
				.anySatisfy((registry) -> assertThat(registry).isInstanceOf(EtcdLockRegistry.class));
			String base = "http://localhost:" + environment.getRequiredProperty("local.server.port");
			assertThat(send("PUT", base + "/orders/on-etcd").statusCode()).isEqualTo(200);
			HttpResponse<String> paid = send("POST", base + "/orders/on-etcd/pay");
			assertThat(paid.statusCode()).as(paid.body()).isEqualTo(200);
			assertThat(send("POST", base + "/orders/on-etcd/pay").statusCode()).isEqualTo(409);
		}
		assertThat(endpoints).allSatisfy((endpoint) -> assertThat(accepts(endpoint)).as("%s", endpoint).isFalse());
	}

	private static boolean accepts(URI endpoint) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 500);
			return true;
		}
		catch (IOException ex) {
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
