package io.quorumlock.sample.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.TreeMap;

/**
 * The load side of {@code sample-app/demo.sh}: fires concurrent payments for the same
 * orders at several instances of the sample and checks that no order is charged twice.
 * <p>
 * {@code await <seconds> <url>...} waits until every instance's health is UP;
 * {@code warmup <orders> <url>...} pays a few orders so that JIT warm-up is not measured.
 * {@code run <phase> <orders> <requests per order> <paid|unavailable> <url>...} creates
 * the orders, pays each from {@code requests per order} concurrent requests spread over
 * the instances, counts the payments each order got, reads the lock metrics from
 * {@code /actuator/metrics} (n/a when an instance does not publish them) and prints a
 * summary. A refused request (423, 503) is retried twice after 200 ms, except in the
 * phase that expects refusals. Exit status: 0, or 3 for a duplicate payment, 4 when the
 * outcome is not the expected one, 5 when the answers and the stored payments disagree.
 */
public final class DemoClient {

	private static final ObjectMapper json = new ObjectMapper();

	private static final int CLIENT_THREADS = 32;

	private static final int MAX_ATTEMPTS = 3;

	private static final Duration RETRY_PAUSE = Duration.ofMillis(200);

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private final List<String> instances;

	private DemoClient(List<String> instances) {
		this.instances = instances;
	}

	/**
	 * Run one command; see the class description.
	 * @param args the command and its arguments
	 * @throws Exception on an unexpected failure
	 */
	public static void main(String[] args) throws Exception {
		if (args.length >= 2 && args[0].equals("await")) {
			System.exit(new DemoClient(List.of(Arrays.copyOfRange(args, 2, args.length)))
				.awaitUp(Duration.ofSeconds(Long.parseLong(args[1]))) ? 0 : 1);
		}
		if (args.length >= 3 && args[0].equals("warmup")) {
			DemoClient client = new DemoClient(List.of(Arrays.copyOfRange(args, 2, args.length)));
			client.warmUp(Integer.parseInt(args[1]));
			System.exit(0);
		}
		if (args.length >= 6 && args[0].equals("run")) {
			DemoClient client = new DemoClient(List.of(Arrays.copyOfRange(args, 5, args.length)));
			System.exit(client.run(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]),
					args[4].equals("unavailable")));
		}
		System.err.println("usage: DemoClient await <seconds> <url>... | warmup <orders> <url>... | "
				+ "run <phase> <orders> <requests per order> <paid|unavailable> <url>...");
		System.exit(2);
	}

	private boolean awaitUp(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		List<String> waiting = new ArrayList<>(this.instances);
		while (!waiting.isEmpty()) {
			waiting.removeIf((base) -> {
				try {
					HttpResponse<String> health = send("GET", base + "/actuator/health");
					return health.statusCode() == 200 && health.body().contains("\"UP\"");
				}
				catch (IOException ex) {
					return false;
				}
			});
			if (!waiting.isEmpty()) {
				if (System.nanoTime() > deadline) {
					System.err.println("not up within " + timeout.toSeconds() + " s: " + waiting);
					return false;
				}
				Thread.sleep(250);
			}
		}
		return true;
	}

	private void warmUp(int orders) throws Exception {
		String prefix = "warmup-" + Long.toString(System.currentTimeMillis(), 36);
		ExecutorService threads = Executors.newFixedThreadPool(8);
		List<Future<?>> requests = new ArrayList<>();
		for (int i = 0; i < orders; i++) {
			String url = instance(i) + "/orders/" + prefix + "-" + i;
			requests.add(threads.submit(() -> {
				send("PUT", url);
				send("POST", url + "/pay");
				return send("POST", url + "/pay");
			}));
		}
		for (Future<?> request : requests) {
			request.get(60, TimeUnit.SECONDS);
		}
		threads.shutdown();
		System.out.println("warm-up: " + orders + " orders paid (twice each) over " + this.instances.size()
				+ " instances, not counted below");
	}

	private int run(String phase, int orders, int perOrder, boolean expectUnavailable) throws Exception {
		String prefix = phase + "-" + Long.toString(System.currentTimeMillis(), 36);
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < orders; i++) {
			String id = prefix + "-" + i;
			HttpResponse<String> created = send("PUT", instance(i) + "/orders/" + id + "?amountCents=" + (1000 + i));
			if (created.statusCode() != 200) {
				throw new IllegalStateException(
						"PUT /orders/" + id + " answered " + created.statusCode() + ": " + created.body());
			}
			ids.add(id);
		}
		LockWaitMetrics before = LockWaitMetrics.read(this);
		Map<Integer, LongAdder> answers = new ConcurrentHashMap<>();
		LongAdder retries = new LongAdder();
		AtomicLong slowestRefusal = new AtomicLong();
		Map<String, String> sampleError = new ConcurrentHashMap<>();
		ExecutorService threads = Executors.newFixedThreadPool(CLIENT_THREADS);
		long started = System.nanoTime();
		List<Future<?>> requests = new ArrayList<>();
		// order by order, so the requests for one
		// order run at the same time on every instance
		for (String id : ids) {
			for (int k = 0; k < perOrder; k++) {
				String url = instance(k) + "/orders/" + id + "/pay";
				requests.add(threads.submit(() -> {
					long t0 = System.nanoTime();
					HttpResponse<String> response = send("POST", url);
					// a client retries a refusal (423, 503)
					// a few times, as Retry-After invites it
					for (int attempt = 1; attempt < MAX_ATTEMPTS && !expectUnavailable
							&& (response.statusCode() == 423 || response.statusCode() == 503); attempt++) {
						retries.increment();
						Thread.sleep(RETRY_PAUSE.toMillis());
						response = send("POST", url);
					}
					long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
					answers.computeIfAbsent(response.statusCode(), (s) -> new LongAdder()).increment();
					if (response.statusCode() >= 500 || response.statusCode() == 423) {
						slowestRefusal.accumulateAndGet(millis, Math::max);
						sampleError.putIfAbsent(String.valueOf(response.statusCode()),
								response.statusCode() + " " + detail(response.body()));
					}
					return null;
				}));
			}
		}
		for (Future<?> request : requests) {
			request.get(60, TimeUnit.SECONDS);
		}
		long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
		threads.shutdown();
		long applied = 0;
		long duplicates = 0;
		long paidOrders = 0;
		for (String id : ids) {
			int payments = json.readTree(send("GET", instance(0) + "/orders/" + id + "/payments").body()).size();
			applied += payments;
			duplicates += Math.max(0, payments - 1);
			paidOrders += (payments > 0) ? 1 : 0;
		}
		LockWaitMetrics after = LockWaitMetrics.read(this);
		long ok = count(answers, 200);
		System.out.printf(Locale.ROOT,
				"requests:           %d (%d orders x %d, over %d instances, %d client threads)" + " in %.1f s%n",
				orders * perOrder, orders, perOrder, this.instances.size(), CLIENT_THREADS, elapsed / 1000.0);
		System.out.printf(Locale.ROOT,
				"final answers:      200 charged %d, 409 already paid %d, 423 lock wait timed out %d,"
						+ " 503 quorum unavailable %d, other %d%n",
				ok, count(answers, 409), count(answers, 423), count(answers, 503),
				answers.entrySet()
					.stream()
					.filter((e) -> !List.of(200, 409, 423, 503).contains(e.getKey()))
					.mapToLong((e) -> e.getValue().sum())
					.sum());
		System.out.printf(Locale.ROOT, "client retries:     %d (a 423 or 503 is retried up to %d times%s)%n",
				retries.sum(), MAX_ATTEMPTS - 1, expectUnavailable ? "; not in this phase" : "");
		System.out.printf(Locale.ROOT, "payments applied:   %d (orders paid: %d of %d)%n", applied, paidOrders, orders);
		System.out.printf(Locale.ROOT, "duplicates:         %d%n", duplicates);
		System.out.println("lock waits:         " + after.describeWaits(before));
		System.out.println("lock timeouts:      " + after.delta(before, "timeout"));
		System.out.println("quorum unavailable: " + after.delta(before, "quorum_unavailable") + " (metrics)");
		if (!sampleError.isEmpty()) {
			System.out.println("slowest refusal:    " + slowestRefusal.get() + " ms");
			new TreeMap<>(sampleError).values().forEach((error) -> System.out.println("sample refusal:     " + error));
		}
		if (duplicates > 0) {
			System.out.println("FAILED: " + duplicates + " duplicate payment(s)");
			return 3;
		}
		if (ok != applied) {
			System.out
				.println("FAILED: " + ok + " requests answered 'charged' but " + applied + " payments are stored");
			return 5;
		}
		if (expectUnavailable ? (applied != 0 || count(answers, 503) != (long) orders * perOrder)
				: paidOrders != orders) {
			System.out.println("FAILED: expected "
					+ (expectUnavailable ? "every payment to be refused with 503" : "every order to be paid once"));
			return 4;
		}
		return 0;
	}

	List<String> instances() {
		return this.instances;
	}

	private String instance(int i) {
		return this.instances.get(i % this.instances.size());
	}

	private static long count(Map<Integer, LongAdder> answers, int status) {
		LongAdder adder = answers.get(status);
		return (adder != null) ? adder.sum() : 0;
	}

	private static String detail(String body) {
		try {
			JsonNode detail = json.readTree(body).get("detail");
			return (detail != null) ? detail.asText() : body;
		}
		catch (IOException ex) {
			return body;
		}
	}

	HttpResponse<String> send(String method, String url) throws IOException {
		HttpRequest request = HttpRequest.newBuilder(URI.create(url))
			.timeout(Duration.ofSeconds(30))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		try {
			return this.http.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException("interrupted", ex);
		}
	}

}
