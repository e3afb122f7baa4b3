package io.quorumlock.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;

import io.quorumlock.bench.candidates.Candidate;

/**
 * Writes the Markdown tables of a run from JMH's JSON result files ({@code -rf json}):
 * {@code Render OUT.md [--note TEXT] FILE.json...}. Ratios and differences are taken to
 * the raw-Lettuce floor of the same files. With {@code --compare}, the arguments are
 * {@code LABEL=FILE.json}, one file per side and round (latency and throughput of the
 * floor and quorumlock), and the page compares the sides' ratios to the floor round by
 * round; {@code LABEL=A.json,B.json} gives a round in several files.
 */
public final class Render {

	private static final String LATENCY = "LatencyBenchmark.lockUnlock";

	private static final String THROUGHPUT = "ThroughputBenchmark.distinctKeys";

	private static final String SHARED_THROUGHPUT = "SharedThroughputBenchmark.fewKeys";

	private static final String ASPECT = "AspectOverheadBenchmark.call";

	private static final String MEMORY = "MemoryBenchmark.distinctKeys";

	private static final List<Candidate> SHARED = List.of(Candidate.QUORUMLOCK_SHARED, Candidate.QUORUMLOCK_PERMITS,
			Candidate.REDISSON_SHARED, Candidate.REDISSON_PERMITS);

	/** One benchmark of one candidate on N nodes, as JMH wrote it. */
	record Row(String benchmark, Candidate candidate, int nodes, JsonNode json) {

		double percentile(String p) {
			return number(this.json.path("primaryMetric").path("scorePercentiles").path(p));
		}

		double score() {
			return number(this.json.path("primaryMetric").path("score"));
		}

		double secondary(String name) {
			JsonNode metrics = this.json.path("secondaryMetrics");
			JsonNode metric = metrics.has(name) ? metrics.get(name) : metrics.path("·" + name);
			return number(metric.path("score"));
		}

		String label() {
			return (this.candidate == Candidate.FLOOR && this.nodes > 1) ? "raw Lettuce floor (parallel quorum)"
					: this.candidate.label();
		}

	}

	private static final ObjectMapper MAPPER = new ObjectMapper();

	private static final Set<String> TEXT_COLUMNS = Set.of("figure", "candidate", "clients", "ops per thread", "target",
			"measured", "status");

	private static final Function<Row, Double> P50 = (r) -> r.percentile("50.0");

	private final List<Row> rows = new ArrayList<>();

	private final StringBuilder md = new StringBuilder();

	private final ArrayNode runs;

	private Render(List<Path> files) throws IOException {
		this.runs = MAPPER.createArrayNode();
		for (Path file : files) {
			if (Files.size(file) > 0) {
				this.runs.addAll((ArrayNode) MAPPER.readTree(file.toFile()));
			}
		}
		for (JsonNode run : this.runs) {
			String benchmark = run.path("benchmark").asText();
			benchmark = benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1);
			JsonNode params = run.path("params");
			String candidate = params.path("candidate").asText("quorumlock");
			this.rows.add(new Row(benchmark, Candidate.of(candidate), params.path("nodes").asInt(1), run));
		}
		this.rows.sort(Comparator.comparingInt(Row::nodes).thenComparing(Row::candidate));
	}

	/**
	 * Render JMH's result files.
	 * @param args {@code [--compare] OUT.md [--note TEXT] [--json ALL.json] FILE.json...}
	 * @throws IOException if a file cannot be read or written
	 */
	public static void main(String[] args) throws IOException {
		boolean compare = args[0].equals("--compare");
		int at = compare ? 1 : 0;
		Path out = Path.of(args[at++]);
		String note = null;
		Path json = null;
		for (; at < args.length && args[at].startsWith("--"); at += 2) {
			if (args[at].equals("--note")) {
				note = args[at + 1];
			}
			else {
				json = Path.of(args[at + 1]);
			}
		}
		List<String> files = List.of(args).subList(at, args.length);
		String page;
		if (compare) {
			page = compare(files, note);
		}
		else {
			Render render = new Render(files.stream().map(Path::of).toList());
			page = render.full(note);
			if (json != null) {
				MAPPER.writerWithDefaultPrettyPrinter().writeValue(json.toFile(), render.runs);
			}
		}
		Files.createDirectories(out.toAbsolutePath().getParent());
		Files.writeString(out, page, StandardCharsets.UTF_8);
		System.out.println(page);
		System.out.println("Wrote " + out);
	}

	private String full(String note) {
		this.md.append("## quorumlock benchmarks, ").append(LocalDate.now(ZoneOffset.UTC)).append("\n\n");
		if (note != null) {
			this.md.append(note).append("\n\n");
		}
		header(this.md, this.rows.isEmpty() ? null : this.rows.get(0).json());
		this.md.append("### Uncontended lock + unlock, 1 thread (µs)\n\n");
		table("nodes | candidate | p50 | p99 | p99.9 | p50 ÷ floor | p50 − floor | JVM CPU/op");
		for (Row r : select(LATENCY, false)) {
			cells(r.nodes(), r.label(), us(r.percentile("50.0")), us(r.percentile("99.0")), us(r.percentile("99.9")),
					vsFloor(r, P50, false), vsFloor(r, P50, true), us(r.secondary("cpu.jvm")));
		}
		this.md.append("\n### Throughput, 16 threads on distinct keys (lock + unlock pairs per second)\n\n");
		table("nodes | candidate | ops/s | ÷ floor | JVM CPU/op (µs) | Redis CPU/op (µs) | alloc/op (B)");
		for (Row r : select(THROUGHPUT, false)) {
			cells(r.nodes(), r.label(), ops(r.score()), vsFloor(r, Row::score, false), us(r.secondary("cpu.jvm")),
					us(r.secondary("cpu.redis")), ops(r.secondary("gc.alloc.rate.norm")));
		}
		this.md.append("\n### Contention on one key, 1 node, 4 threads, empty critical section\n\n");
		this.md.append("Wait = from the call to entering the critical section. Fairness = the slowest thread's "
				+ "operations ÷ the busiest thread's. A run in which two holders were ever inside at once fails.\n\n");
		table("clients | candidate | ops/s | wait p50 (ms) | p99 | p99.9 | max | fairness | ops per thread | timeouts");
		for (String method : List.of("oneClient", "fourClients")) {
			for (Row r : select("ContentionBenchmark." + method, false)) {
				StringBuilder perThread = new StringBuilder();
				for (int i = 0; !Double.isNaN(r.secondary("ops.thread" + i)); i++) {
					perThread.append((i > 0) ? " / " : "").append(ops(r.secondary("ops.thread" + i)));
				}
				cells(method.equals("oneClient") ? "1 shared (4 threads)" : "4 separate", r.label(), ops(r.score()),
						ms(r.secondary("wait.p50")), ms(r.secondary("wait.p99")), ms(r.secondary("wait.p99.9")),
						ms(r.secondary("wait.max")), fmt(r.secondary("fairness"), 2), perThread,
						fmt(r.secondary("timeouts"), 0));
			}
		}
		this.md.append("\n### Aspect overhead and memory\n\n");
		this.md.append("- `@DistributedLock` minus the programmatic API, p50 on 1 node: ")
			.append(signedUs(pair(LATENCY, 1, Candidate.QUORUMLOCK_ASPECT, Candidate.QUORUMLOCK, P50, true)))
			.append("; the same on a registry that grants at once (no Redis, mean per call): ")
			.append(signedUs(
					pair(ASPECT, 0, Candidate.QUORUMLOCK_ASPECT, Candidate.QUORUMLOCK, Row::score, true) / 1000))
			.append(".\n");
		Row memory = find(MEMORY, Candidate.QUORUMLOCK, 1);
		if (memory == null) {
			this.md.append("- Memory: not measured.\n");
		}
		else {
			this.md.append(String.format(Locale.ROOT,
					"- Memory: locking and releasing %s distinct keys with quorumlock (%s/s, 64 in flight) left %s of "
							+ "retained heap (%s before, %s after, `System.gc()` then `MemoryMXBean`); %s of those "
							+ "lock keys left in Redis.%n",
					ops(memory.json().path("params").path("keys").asDouble()), ops(memory.secondary("keys.rate")),
					mb(memory.secondary("heap.retained")), mb(memory.secondary("heap.before")),
					mb(memory.secondary("heap.after")), ops(memory.secondary("keys.left"))));
		}
		shared();
		targets();
		this.md.append("\n### Operations that failed (counted, not thrown; measurement iterations)\n\n");
		int failing = 0;
		for (Row r : this.rows) {
			if (r.secondary("errors") > 0) {
				failing++;
				this.md.append(String.format(Locale.ROOT, "- `%s` %s on %d node(s): %s; the first is in the log.%n",
						r.benchmark(), r.candidate().id(), r.nodes(), ops(r.secondary("errors"))));
			}
		}
		if (failing == 0) {
			this.md.append("None.\n");
		}
		return this.md.toString();
	}

	private void shared() {
		this.md.append("\n### Shared locks and permits\n\n");
		this.md.append("Shared: quorumlock `LockMode.SHARED`, Redisson `RReadWriteLock.readLock()`. Permits: one of "
				+ Candidate.PERMITS + " (quorumlock `permits(" + Candidate.PERMITS + ")`, Redisson "
				+ "`RPermitExpirableSemaphore` with a lease, released by permit id). Every grant has the same 30 s "
				+ "lease. ÷ Redisson: quorumlock's figure over Redisson's on one node.\n\n");
		this.md.append("Acquire + release, 1 thread, uncontended (µs):\n\n");
		table("nodes | candidate | p50 | p99 | p99.9 | p50 ÷ Redisson | JVM CPU/op");
		for (Row r : select(LATENCY, true)) {
			cells(r.nodes(), r.label(), us(r.percentile("50.0")), us(r.percentile("99.0")), us(r.percentile("99.9")),
					vsRedisson(r, P50), us(r.secondary("cpu.jvm")));
		}
		this.md.append("\n16 threads on ")
			.append(SharedThroughputBenchmark.KEYS)
			.append(" keys, 4 a key, waiting up to 10 s for a permit (acquire + release pairs per second):\n\n");
		table("nodes | candidate | ops/s | ÷ Redisson | JVM CPU/op (µs) | Redis CPU/op (µs) | alloc/op (B) | errors");
		for (Row r : select(SHARED_THROUGHPUT, true)) {
			cells(r.nodes(), r.label(), ops(r.score()), vsRedisson(r, Row::score), us(r.secondary("cpu.jvm")),
					us(r.secondary("cpu.redis")), ops(r.secondary("gc.alloc.rate.norm")), ops(r.secondary("errors")));
		}
	}

	private void targets() {
		this.md.append("\n### Targets\n\n");
		table("target | measured | status");
		target("1 node, uncontended p50 ≤ 1.10× floor", ratio(LATENCY, 1, Candidate.QUORUMLOCK, Candidate.FLOOR, P50),
				1.10, true);
		target("1 node, uncontended p50 ≤ floor + 15 µs",
				pair(LATENCY, 1, Candidate.QUORUMLOCK, Candidate.FLOOR, P50, true), 15, true);
		for (Candidate redisson : List.of(Candidate.REDISSON_LEASE, Candidate.REDISSON_WATCHDOG)) {
			target("16 threads, distinct keys ≥ 2.5× " + redisson.label(),
					ratio(THROUGHPUT, 1, Candidate.QUORUMLOCK, redisson, Row::score), 2.5, false);
		}
		target("16 threads, distinct keys ≥ 0.95× floor",
				ratio(THROUGHPUT, 1, Candidate.QUORUMLOCK, Candidate.FLOOR, Row::score), 0.95, false);
		for (int n : new int[] { 3, 5 }) {
			target(n + " nodes, uncontended p50 ≤ 1.15× parallel floor",
					ratio(LATENCY, n, Candidate.QUORUMLOCK, Candidate.FLOOR, P50), 1.15, true);
			target(n + " nodes, uncontended p50 ≥ 4× faster than RedissonRedLock",
					ratio(LATENCY, n, Candidate.REDISSON_REDLOCK, Candidate.QUORUMLOCK, P50), 4, false);
			target(n + " nodes, 16 threads ≥ 0.9× parallel floor",
					ratio(THROUGHPUT, n, Candidate.QUORUMLOCK, Candidate.FLOOR, Row::score), 0.9, false);
		}
		String threads = "ContentionBenchmark.oneClient";
		target("one key, 4 threads: ops/s ≥ Spring Integration pub/sub",
				ratio(threads, 1, Candidate.QUORUMLOCK, Candidate.SI_PUBSUB, Row::score), 1, false);
		Row contention = find(threads, Candidate.QUORUMLOCK, 1);
		target("one key, 4 threads: fairness ≥ 0.8",
				(contention != null) ? contention.secondary("fairness") : Double.NaN, 0.8, false);
		target("one key, 4 threads: wait p99.9 ≤ 10 ms",
				(contention != null) ? contention.secondary("wait.p99.9") / 1000 : Double.NaN, 10, true);
		target("the aspect's own cost ≤ 3 µs (registry that grants at once)",
				pair(ASPECT, 0, Candidate.QUORUMLOCK_ASPECT, Candidate.QUORUMLOCK, Row::score, true) / 1000, 3, true);
		target("one key, 4 clients: ops/s ≥ 1.5× Redisson",
				ratio("ContentionBenchmark.fourClients", 1, Candidate.QUORUMLOCK, Candidate.REDISSON_LEASE, Row::score),
				1.5, false);
		Row memory = find(MEMORY, Candidate.QUORUMLOCK, 1);
		target("distinct keys: retained heap ≤ 5 MB",
				(memory != null) ? memory.secondary("heap.retained") / (1024 * 1024) : Double.NaN, 5, true);
	}

	private void target(String what, double measured, double bound, boolean atMost) {
		String status = Double.isNaN(measured) ? "n/a"
				: (atMost ? measured <= bound : measured >= bound) ? "met" : "missed";
		String unit = what.contains("×") ? "×"
				: what.contains(" µs") ? " µs" : what.contains(" ms") ? " ms" : what.contains(" MB") ? " MB" : "";
		cells(what, Double.isNaN(measured) ? "—" : fmt(measured, 2) + unit, status);
	}

	private List<Row> select(String benchmark, boolean shared) {
		return this.rows.stream()
			.filter((r) -> r.benchmark().equals(benchmark) && SHARED.contains(r.candidate()) == shared)
			.toList();
	}

	private Row find(String benchmark, Candidate candidate, int nodes) {
		return this.rows.stream()
			.filter((r) -> r.benchmark().equals(benchmark) && r.candidate() == candidate && r.nodes() == nodes)
			.findFirst()
			.orElse(null);
	}

	private double ratio(String benchmark, int nodes, Candidate of, Candidate to, Function<Row, Double> figure) {
		return pair(benchmark, nodes, of, to, figure, false);
	}

	/**
	 * One candidate's figure divided by (or minus) another's; NaN if either is missing.
	 */
	private double pair(String benchmark, int nodes, Candidate of, Candidate to, Function<Row, Double> figure,
			boolean difference) {
		Row x = find(benchmark, of, nodes);
		Row y = find(benchmark, to, nodes);
		if (x == null || y == null) {
			return Double.NaN;
		}
		return difference ? figure.apply(x) - figure.apply(y) : figure.apply(x) / figure.apply(y);
	}

	private String vsFloor(Row r, Function<Row, Double> figure, boolean difference) {
		if (r.candidate() == Candidate.FLOOR) {
			return difference ? "—" : "1";
		}
		double value = pair(r.benchmark(), r.nodes(), r.candidate(), Candidate.FLOOR, figure, difference);
		return difference ? signedUs(value) : times(value);
	}

	private String vsRedisson(Row r, Function<Row, Double> figure) {
		Candidate peer = (r.candidate() == Candidate.QUORUMLOCK_SHARED) ? Candidate.REDISSON_SHARED
				: (r.candidate() == Candidate.QUORUMLOCK_PERMITS) ? Candidate.REDISSON_PERMITS : null;
		return (peer == null || r.nodes() != 1) ? "—" : times(ratio(r.benchmark(), 1, r.candidate(), peer, figure));
	}

	/**
	 * The before/after page: per side, the ratio of quorumlock to the floor of the same
	 * file (one JMH run of both), round by round, their median, and the sides' medians
	 * divided.
	 */
	private static String compare(List<String> labelled, String note) throws IOException {
		Map<String, List<Render>> sides = new LinkedHashMap<>();
		for (String arg : labelled) {
			int eq = arg.indexOf('=');
			List<Path> round = Stream.of(arg.substring(eq + 1).split(",")).map(Path::of).toList();
			sides.computeIfAbsent(arg.substring(0, eq), (k) -> new ArrayList<>()).add(new Render(round));
		}
		StringBuilder md = new StringBuilder("## quorumlock benchmarks, " + String.join(" and ", sides.keySet())
				+ " side by side, " + LocalDate.now(ZoneOffset.UTC) + "\n\n");
		if (note != null) {
			md.append(note).append("\n\n");
		}
		List<Render> first = sides.values().iterator().next();
		header(md, first.get(0).rows.isEmpty() ? null : first.get(0).rows.get(0).json());
		md.append("Each cell: quorumlock ÷ the raw-Lettuce floor of the same JMH run, per round in run order, then "
				+ "the median (and in brackets the spread of the rounds, max − min). Latency: p50; throughput: "
				+ "lock + unlock pairs per second, 16 threads on distinct keys.\n\n");
		List<String> labels = List.copyOf(sides.keySet());
		StringBuilder head = new StringBuilder("figure | nodes");
		for (String label : labels) {
			head.append(" | ").append(label).append(" (rounds) | ").append(label).append(" median");
		}
		head.append(" | ").append(labels.get(labels.size() - 1)).append(" ÷ ").append(labels.get(0));
		table(md, head.toString());
		for (String benchmark : List.of(LATENCY, THROUGHPUT)) {
			Function<Row, Double> figure = benchmark.equals(LATENCY) ? P50 : Row::score;
			for (int nodes : new int[] { 1, 3, 5 }) {
				List<Object> cells = new ArrayList<>(
						List.of(benchmark.equals(LATENCY) ? "p50 ÷ floor" : "ops/s ÷ floor", nodes));
				List<Double> medians = new ArrayList<>();
				for (String label : labels) {
					List<Double> ratios = new ArrayList<>();
					for (Render round : sides.get(label)) {
						double r = round.ratio(benchmark, nodes, Candidate.QUORUMLOCK, Candidate.FLOOR, figure);
						if (!Double.isNaN(r)) {
							ratios.add(r);
						}
					}
					double median = median(ratios);
					medians.add(median);
					cells.add(String.join(", ", ratios.stream().map(Render::times).toList()));
					cells.add(times(median) + (ratios.isEmpty() ? "" : String.format(Locale.ROOT, " (%.2f)",
							ratios.stream().max(Double::compare).get() - ratios.stream().min(Double::compare).get())));
				}
				if (medians.stream().allMatch((m) -> m.isNaN())) {
					continue;
				}
				cells.add(times(medians.get(medians.size() - 1) / medians.get(0)));
				md.append("| ").append(String.join(" | ", cells.stream().map(String::valueOf).toList())).append(" |\n");
			}
		}
		md.append("\nThe figures themselves (median over the rounds; µs for latency, ops/s for throughput):\n\n");
		table(md, "figure | nodes | candidate | " + String.join(" | ", labels));
		for (String benchmark : List.of(LATENCY, THROUGHPUT)) {
			for (int nodes : new int[] { 1, 3, 5 }) {
				for (Candidate c : List.of(Candidate.FLOOR, Candidate.QUORUMLOCK)) {
					List<String> cells = new ArrayList<>();
					for (String label : labels) {
						List<Double> values = new ArrayList<>();
						for (Render round : sides.get(label)) {
							Row row = round.find(benchmark, c, nodes);
							if (row != null) {
								values.add((benchmark.equals(LATENCY) ? P50 : (Function<Row, Double>) Row::score)
									.apply(row));
							}
						}
						cells.add(benchmark.equals(LATENCY) ? us(median(values)) : ops(median(values)));
					}
					if (!cells.stream().allMatch("—"::equals)) {
						md.append(String.format(Locale.ROOT, "| %s | %d | %s | %s |%n",
								benchmark.equals(LATENCY) ? "p50" : "ops/s", nodes, c.label(),
								String.join(" | ", cells)));
					}
				}
			}
		}
		return md.toString();
	}

	/** The run's settings (from JMH's file) and the machine's line. */
	private static void header(StringBuilder md, JsonNode run) {
		if (run != null) {
			md.append(String.format(Locale.ROOT,
					"JMH %s, %s fork(s) of each benchmark, warm-up %s × %s, measurement %s × %s (the first file's "
							+ "settings; run.sh gives each scenario its own warm-up). JVM: %s %s, %s.%n%n",
					run.path("jmhVersion").asText(), run.path("forks").asText(), run.path("warmupIterations").asText(),
					run.path("warmupTime").asText(), run.path("measurementIterations").asText(),
					run.path("measurementTime").asText(), run.path("vmName").asText(), run.path("vmVersion").asText(),
					run.path("jvmArgs").toString()));
		}
		md.append(String.format(Locale.ROOT,
				"Machine: %d cores, %s, %s RAM; %s %s %s. Redis: %s, 5 servers on loopback, no persistence. "
						+ "Load average before/after: %s / %s. Commit %s.%n%n",
				Runtime.getRuntime().availableProcessors(), firstValue("/proc/cpuinfo", "model name"),
				firstValue("/proc/meminfo", "MemTotal"), System.getProperty("os.name"),
				System.getProperty("os.version"), System.getProperty("os.arch"),
				System.getenv().getOrDefault("BENCH_REDIS_BINARY", "?"),
				System.getenv().getOrDefault("BENCH_LOAD_BEFORE", "?"), loadAverage(),
				System.getenv().getOrDefault("BENCH_COMMIT", "?")));
		StringBuilder versions = new StringBuilder("Versions:");
		for (String artifact : List.of("lettuce-core", "redisson", "spring-integration-redis", "spring-data-redis",
				"spring-core", "netty-transport", "jmh-core")) {
			Matcher jar = Pattern.compile("/" + artifact + "-(\\d[^/]*)\\.jar")
				.matcher(System.getProperty("java.class.path"));
			versions.append((versions.length() > 9) ? ", " : " ")
				.append(artifact)
				.append(' ')
				.append(jar.find() ? jar.group(1) : "?");
		}
		md.append(versions).append(".\n\n");
	}

	private static String firstValue(String file, String key) {
		try {
			return Files.readAllLines(Path.of(file))
				.stream()
				.filter((line) -> line.startsWith(key))
				.map((line) -> line.substring(line.indexOf(':') + 1).trim().replaceAll("\\s+", " "))
				.findFirst()
				.orElse("?");
		}
		catch (IOException ex) {
			return "?";
		}
	}

	private static String loadAverage() {
		try {
			String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
			return String.join(" ", fields[0], fields[1], fields[2]);
		}
		catch (IOException ex) {
			return "?";
		}
	}

	private void table(String head) {
		table(this.md, head);
	}

	private static void table(StringBuilder md, String head) {
		String[] columns = head.split(" \\| ");
		md.append("| ").append(head).append(" |\n|");
		for (int i = 0; i < columns.length; i++) {
			md.append(TEXT_COLUMNS.contains(columns[i]) ? "---|" : "---:|");
		}
		md.append('\n');
	}

	private void cells(Object... cells) {
		this.md.append('|');
		for (Object cell : cells) {
			this.md.append(' ').append(cell).append(" |");
		}
		this.md.append('\n');
	}

	private static double median(List<Double> values) {
		if (values.isEmpty()) {
			return Double.NaN;
		}
		List<Double> sorted = values.stream().sorted().toList();
		int n = sorted.size();
		return (n % 2 == 1) ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
	}

	private static double number(JsonNode node) {
		return (node.isNumber() || node.isTextual()) ? node.asDouble(Double.NaN) : Double.NaN;
	}

	private static String us(double micros) {
		return Double.isNaN(micros) ? "—" : String.format(Locale.ROOT, (micros >= 100) ? "%.0f" : "%.1f", micros);
	}

	private static String signedUs(double micros) {
		return Double.isNaN(micros) ? "—" : String.format(Locale.ROOT, "%+.1f µs", micros);
	}

	private static String ms(double micros) {
		double millis = micros / 1000.0;
		return Double.isNaN(millis) ? "—"
				: String.format(Locale.ROOT, (millis >= 10) ? "%.0f" : (millis >= 1) ? "%.1f" : "%.2f", millis);
	}

	private static String ops(double value) {
		return Double.isNaN(value) ? "—" : String.format(Locale.ROOT, "%,.0f", value);
	}

	private static String times(double ratio) {
		return Double.isNaN(ratio) ? "—" : String.format(Locale.ROOT, "%.2f×", ratio);
	}

	private static String fmt(double value, int decimals) {
		return Double.isNaN(value) ? "—" : String.format(Locale.ROOT, "%." + decimals + "f", value);
	}

	private static String mb(double bytes) {
		return Double.isNaN(bytes) ? "—" : String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024.0));
	}

}
