package io.quorumlock.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.sample.orders.OrderStore;
import io.quorumlock.sample.orders.Payment;
import io.quorumlock.sample.orders.StaleFencingTokenException;
import io.quorumlock.testing.RedisServers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The sample end to end, over HTTP, on three real Redis masters (quorum mode) and H2.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis.enabled=false", "quorumlock.rejoin-delay=0s",
				"sample.processing-delay=100ms",
				// the build machine is shared and loaded: a local Redis answer can take
				// longer than the 50 ms default, which would turn a grant into a 503
				"quorumlock.node-timeout=500ms" })
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SampleApplicationIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	@DynamicPropertySource
	static void redisNodes(DynamicPropertyRegistry registry) {
		registry.add("quorumlock.nodes", () -> String.join(",", redis.uris()));
	}

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@LocalServerPort
	private int port;

	@Autowired
	private OrderStore orders;

	@Autowired
	private DistributedLockRegistry registry;

	@Autowired
	private GatedProcessingDelay processing;

	@Autowired
	private JdbcTemplate jdbc;

	@AfterEach
	void stopThreads() {
		this.threads.shutdownNow();
	}

	@Test
	void payingTheSameOrderFromSixteenThreadsChargesItExactlyOnce() throws Exception {
		assertThat(send("PUT", "/orders/race-16?amountCents=4200").statusCode()).isEqualTo(200);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<HttpResponse<String>>> responses = new ArrayList<>();
		for (int i = 0; i < 16; i++) {
			responses.add(this.threads.submit(() -> {
				start.await();
				return send("POST", "/orders/race-16/pay");
			}));
		}
		start.countDown();
		List<Integer> statuses = new ArrayList<>();
		for (Future<HttpResponse<String>> response : responses) {
			statuses.add(response.get(60, TimeUnit.SECONDS).statusCode());
		}
		Map<Integer, Long> byStatus = statuses.stream()
			.collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
		assertThat(byStatus).containsExactlyInAnyOrderEntriesOf(Map.of(200, 1L, 409, 15L));
		List<Payment> payments = this.orders.payments("race-16");
		assertThat(payments).hasSize(1);
		assertThat(payments.get(0).amountCents()).isEqualTo(4200);
		assertThat(this.orders.find("race-16").orElseThrow().paid()).isTrue();
	}

	@Test
	void theStoreRefusesAWriteWithAStaleFencingToken() throws Exception {
		assertThat(send("PUT", "/orders/fenced").statusCode()).isEqualTo(200);
		long staleToken;
		// an earlier holder of the same lock (name "orders", key "fenced") whose lease
		// ends
		try (Lease earlier = this.registry.acquire(LockRequest.of("fenced").name("orders"))) {
			staleToken = earlier.fencingToken();
		}
		HttpResponse<String> paid = send("POST", "/orders/fenced/pay");
		assertThat(paid.statusCode()).isEqualTo(200);
		Payment payment = this.orders.payments("fenced").get(0);
		assertThat(payment.fencingToken()).isGreaterThan(staleToken);
		assertThat(this.orders.find("fenced").orElseThrow().lastFencingToken()).isEqualTo(payment.fencingToken());
		// the earlier holder's late write, and a replay of the current token, are both
		// refused
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.orders.recordPayment("fenced", 1000, staleToken))
			.withMessageContaining("fencing token " + staleToken + " refused")
			.withMessageContaining("accepted token " + payment.fencingToken());
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.orders.recordPayment("fenced", 1000, payment.fencingToken()));
		assertThat(this.orders.payments("fenced")).containsExactly(payment);
		assertThat(this.orders.find("fenced").orElseThrow().lastFencingToken()).isEqualTo(payment.fencingToken());
		// a token greater than the last one is accepted: the guard is the token, not the
		// status
		this.orders.recordPayment("fenced", 1000, payment.fencingToken() + 1);
		assertThat(this.orders.payments("fenced")).hasSize(2);
	}

	@Test
	void aReservationLocksEverySkuOfTheRequest() throws Exception {
		for (String sku : List.of("apple", "pear", "plum")) {
			assertThat(send("PUT", "/stock/" + sku + "?available=10").statusCode()).isEqualTo(200);
		}
		GatedProcessingDelay.Gate gate = this.processing.arm("held-reservation");
		CompletableFuture<HttpResponse<String>> reservation = sendAsync("POST", "/stock/reservations",
				"{\"reference\":\"held-reservation\",\"skus\":[\"pear\",\"apple\"],\"quantity\":2}");
		assertThat(gate.awaitEntered()).isTrue();
		assertThat(tryLock("stock", "apple")).isEmpty();
		assertThat(tryLock("stock", "pear")).isEmpty();
		Optional<Lease> plum = tryLock("stock", "plum");
		assertThat(plum).isPresent();
		plum.get().release();
		assertThat(reservation).isNotDone();
		gate.open();
		HttpResponse<String> done = reservation.get(30, TimeUnit.SECONDS);
		assertThat(done.statusCode()).isEqualTo(200);
		assertThat(done.body()).contains("\"pear\":8", "\"apple\":8");
		assertThat(tryLock("stock", "apple")).hasValueSatisfying(Lease::release);
	}

	@Test
	void overlappingReservationsNeverOversell() throws Exception {
		for (String sku : List.of("a", "b", "c")) {
			assertThat(send("PUT", "/stock/" + sku + "?available=5").statusCode()).isEqualTo(200);
		}
		List<List<String>> pairs = List.of(List.of("a", "b"), List.of("b", "c"), List.of("c", "a"));
		CountDownLatch start = new CountDownLatch(1);
		List<Future<HttpResponse<String>>> responses = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			List<String> pair = pairs.get(i % 3);
			String body = "{\"reference\":\"r" + i + "\",\"skus\":[\"" + pair.get(0) + "\",\"" + pair.get(1)
					+ "\"],\"quantity\":1}";
			responses.add(this.threads.submit(() -> {
				start.await();
				return send("POST", "/stock/reservations", body);
			}));
		}
		start.countDown();
		int reserved = 0;
		for (Future<HttpResponse<String>> response : responses) {
			int status = response.get(60, TimeUnit.SECONDS).statusCode();
			assertThat(status).isIn(200, 409);
			reserved += (status == 200) ? 1 : 0;
		}
		// each SKU is in 8 requests but has 5: some must be refused, none may be lost
		assertThat(reserved).isLessThan(12);
		for (String sku : List.of("a", "b", "c")) {
			Integer available = this.jdbc.queryForObject("select available from stock where sku = ?", Integer.class,
					sku);
			Integer taken = this.jdbc.queryForObject(
					"select coalesce(sum(quantity), 0) from stock_reservation where sku = ?", Integer.class, sku);
			assertThat(available).isNotNegative();
			assertThat(available + taken).as("stock of %s accounted for", sku).isEqualTo(5);
		}
	}

	@Test
	void theCompletableFutureEndpointHoldsTheLockUntilItCompletes() throws Exception {
		payHoldsTheLock("held-future", "pay-async");
	}

	@Test
	void theMonoEndpointHoldsTheLockUntilItCompletes() throws Exception {
		payHoldsTheLock("held-mono", "pay-reactive");
	}

	private void payHoldsTheLock(String order, String endpoint) throws Exception {
		assertThat(send("PUT", "/orders/" + order).statusCode()).isEqualTo(200);
		GatedProcessingDelay.Gate gate = this.processing.arm(order);
		CompletableFuture<HttpResponse<String>> payment = sendAsync("POST", "/orders/" + order + "/" + endpoint, null);
		assertThat(gate.awaitEntered()).isTrue();
		assertThat(tryLock("orders", order)).isEmpty();
		assertThat(payment).isNotDone();
		gate.open();
		HttpResponse<String> paid = payment.get(30, TimeUnit.SECONDS);
		assertThat(paid.statusCode()).isEqualTo(200);
		// released before the response was written
		assertThat(tryLock("orders", order)).hasValueSatisfying(Lease::release);
		assertThat(this.orders.payments(order)).hasSize(1);
		assertThat(send("POST", "/orders/" + order + "/" + endpoint).statusCode()).isEqualTo(409);
		assertThat(this.orders.payments(order)).hasSize(1);
	}

	private Optional<Lease> tryLock(String name, String key) {
		return this.registry.tryAcquire(LockRequest.of(key).name(name).waitAtMost(Duration.ZERO));
	}

	private HttpResponse<String> send(String method, String path) throws Exception {
		return send(method, path, null);
	}

	private HttpResponse<String> send(String method, String path, String json) throws Exception {
		return sendAsync(method, path, json).get(60, TimeUnit.SECONDS);
	}

	private CompletableFuture<HttpResponse<String>> sendAsync(String method, String path, String json) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(60));
		if (json != null) {
			request.header("Content-Type", "application/json")
				.method(method, HttpRequest.BodyPublishers.ofString(json));
		}
		else {
			request.method(method, HttpRequest.BodyPublishers.noBody());
		}
		return this.http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class GateConfiguration {

		@Bean
		@Primary
		GatedProcessingDelay gatedProcessingDelay(@Value("${sample.processing-delay}") Duration delay) {
			return new GatedProcessingDelay(delay);
		}

	}

}
