package io.quorumlock.bench;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleBinaryOperator;

import io.quorumlock.bench.BenchRunner.Group;
import io.quorumlock.bench.BenchRunner.Job;
import io.quorumlock.bench.candidates.Candidate;

/**
 * Medians over the rounds, ratios to the floor within each round, the targets,
 * and the JSON and markdown renderings of all of it.
 */
final class Report {

	private final BenchRunner.Settings settings;

	private final OffsetDateTime startedAt;

	private final double seconds;

	private final Map<String, Object> machine;

	private final Map<String, Object> versions;

	private final List<Group> plan;

	private final Map<Job, List<Map<String, Double>>> results;

	private final Map<Job, String> failures;

	private final Map<Job, String> errors;

	private final Map<String, Double> memory;

	private final String memoryFailure;

	private final List<Map<String, Object>> targets = new ArrayList<>();

	Report(BenchRunner.Settings settings, OffsetDateTime startedAt, double seconds, Map<String, Object> machine,
			Map<String, Object> versions, List<Group> plan, Map<Job, List<Map<String, Double>>> results,
			Map<Job, String> failures, Map<Job, String> errors, Map<String, Double> memory, String memoryFailure) {
		this.settings = settings;
		this.startedAt = startedAt;
		this.seconds = seconds;
		this.machine = machine;
		this.versions = versions;
		this.plan = plan;
		this.results = results;
		this.failures = failures;
		this.errors = errors;
		this.memory = memory;
		this.memoryFailure = memoryFailure;
		evaluateTargets();
	}

	// ---- figures

	private List<Map<String, Double>> rounds(String scenario, int nodes, Candidate candidate) {
		return this.results.getOrDefault(new Job(scenario, nodes, candidate), List.of());
	}

	/** Median over the rounds, NaN if none. */
	Double median(String scenario, int nodes, Candidate candidate, String metric) {
		List<Double> values = new ArrayList<>();
		for (Map<String, Double> round : rounds(scenario, nodes, candidate)) {
			Double v = round.get(metric);
			if (v != null) {
				values.add(v);
			}
		}
		return median(values);
	}

	/** Median over the rounds of {@code op(a, b)}, a and b measured in the same round. */
	Double paired(String scenario, int nodes, Candidate a, Candidate b, String metric, DoubleBinaryOperator op) {
		return paired(scenario, nodes, a, scenario, b, metric, op);
	}

	Double paired(String scenario, int nodes, Candidate a, String scenarioB, Candidate b, String metric,
			DoubleBinaryOperator op) {
		List<Map<String, Double>> ra = rounds(scenario, nodes, a);
		List<Map<String, Double>> rb = rounds(scenarioB, nodes, b);
		List<Double> values = new ArrayList<>();
		for (int i = 0; i < Math.min(ra.size(), rb.size()); i++) {
			Double x = ra.get(i).get(metric);
			Double y = rb.get(i).get(metric);
			if (x != null && y != null) {
				values.add(op.applyAsDouble(x, y));
			}
		}
		return median(values);
	}

	static double median(List<Double> values) {
		if (values.isEmpty()) {
			return Double.NaN;
		}
		List<Double> sorted = new ArrayList<>(values);
		sorted.sort(null);
		int n = sorted.size();
		return (n % 2 == 1) ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
	}

	private Double aspectOverheadUs() {
		return paired(BenchRunner.LATENCY, 1, Candidate.QUORUMLOCK_ASPECT, Candidate.QUORUMLOCK, "p50Us",
				(x, y) -> x - y);
	}

	/** The aspect's own cost without Redis, in µs. */
	private Double aspectStubUs() {
		return paired(BenchRunner.ASPECT, 0, Candidate.QUORUMLOCK_ASPECT, Candidate.QUORUMLOCK, "nsPerOp",
				(x, y) -> (x - y) / 1000.0);
	}

	// ---- targets

	private void target(String what, String measured, Boolean met) {
		Map<String, Object> t = new LinkedHashMap<>();
		t.put("target", what);
		t.put("measured", measured);
		t.put("status", (met == null) ? "n/a" : met ? "met" : "missed");
		this.targets.add(t);
	}

	private static Boolean check(double value, boolean ok) {
		return Double.isNaN(value) ? null : ok;
	}

	private void evaluateTargets() {
		String lat = BenchRunner.LATENCY;
		String tp = BenchRunner.THROUGHPUT;
		Candidate ql = Candidate.QUORUMLOCK;
		Candidate floor = Candidate.FLOOR;
		// single node, uncontended
		double ratio = paired(lat, 1, ql, floor, "p50Us", (x, y) -> x / y);
		double delta = paired(lat, 1, ql, floor, "p50Us", (x, y) -> x - y);
		target("1 node, uncontended p50 ≤ 1.10× floor", ratio(ratio) + " (" + signedUs(delta) + ")",
				check(ratio, ratio <= 1.10));
		target("1 node, uncontended p50 ≤ floor + 15 µs", signedUs(delta), check(delta, delta <= 15));
		double qlP50 = median(lat, 1, ql, "p50Us");
		double spin = median(lat, 1, Candidate.SI_SPIN, "p50Us");
		double pubsub = median(lat, 1, Candidate.SI_PUBSUB, "p50Us");
		double si = Math.min(nanToMax(spin), nanToMax(pubsub));
		target("1 node, uncontended p50 ≤ Spring Integration's",
				us(qlP50) + " µs vs " + us(spin) + " (spin), " + us(pubsub) + " (pub/sub)",
				check(qlP50 + ((si == Double.MAX_VALUE) ? Double.NaN : 0), qlP50 <= si));
		// throughput, one node
		double tpRatio = paired(tp, 1, ql, floor, "opsPerSecond", (x, y) -> x / y);
		target("16 threads, distinct keys ≥ 0.95× floor", ratio(tpRatio), check(tpRatio, tpRatio >= 0.95));
		double lease = paired(tp, 1, ql, Candidate.REDISSON_LEASE, "opsPerSecond", (x, y) -> x / y);
		double watchdog = paired(tp, 1, ql, Candidate.REDISSON_WATCHDOG, "opsPerSecond", (x, y) -> x / y);
		double vsRedisson = Math.min(nanToMax(lease), nanToMax(watchdog));
		target("16 threads, distinct keys ≥ 2.5× Redisson",
				ratio(lease) + " RLock lease, " + ratio(watchdog) + " RLock watchdog",
				check((vsRedisson == Double.MAX_VALUE) ? Double.NaN : vsRedisson, vsRedisson >= 2.5));
		// quorum
		for (int n : new int[] { 3, 5 }) {
			double qRatio = paired(lat, n, ql, floor, "p50Us", (x, y) -> x / y);
			double qDelta = paired(lat, n, ql, floor, "p50Us", (x, y) -> x - y);
			target(n + " nodes, uncontended p50 ≤ 1.15× parallel floor", ratio(qRatio) + " (" + signedUs(qDelta) + ")",
					check(qRatio, qRatio <= 1.15));
			double speedup = paired(lat, n, Candidate.REDISSON_REDLOCK, ql, "p50Us", (x, y) -> x / y);
			target(n + " nodes, uncontended p50 ≥ 4× faster than RedissonRedLock", ratio(speedup) + " faster",
					check(speedup, speedup >= 4));
			double qTp = paired(tp, n, ql, floor, "opsPerSecond", (x, y) -> x / y);
			target(n + " nodes, 16 threads ≥ 0.9× parallel floor", ratio(qTp), check(qTp, qTp >= 0.9));
		}
		// contention
		String threads = BenchRunner.CONTENTION_THREADS;
		double vsSi = paired(threads, 1, ql, Candidate.SI_PUBSUB, "opsPerSecond", (x, y) -> x / y);
		target("one key, 4 threads: ops/s ≥ Spring Integration pub/sub", ratio(vsSi), check(vsSi, vsSi >= 1.0));
		double fairness = median(threads, 1, ql, "fairness");
		target("one key, 4 threads: fairness ≥ 0.8", fmt(fairness, 2), check(fairness, fairness >= 0.8));
		double p999 = median(threads, 1, ql, "waitP999Us");
		target("one key, 4 threads: wait p99.9 ≤ 10 ms", ms(p999) + " ms", check(p999, p999 <= 10_000));
		double clients = paired(BenchRunner.CONTENTION_CLIENTS, 1, ql, Candidate.REDISSON_LEASE, "opsPerSecond",
				(x, y) -> x / y);
		target("one key, 4 clients: ops/s ≥ 1.5× Redisson", ratio(clients), check(clients, clients >= 1.5));
		// aspect
		double aspect = aspectOverheadUs();
		String aspectWhy = this.failures.get(new Job(lat, 1, Candidate.QUORUMLOCK_ASPECT));
		target("aspect overhead ≤ 3 µs at p50", Double.isNaN(aspect)
				? "not measured" + ((aspectWhy != null) ? ": " + aspectWhy : "") : signedUs(aspect),
				check(aspect, aspect <= 3));
		double stub = aspectStubUs();
		target("aspect's own cost ≤ 3 µs (stub registry, no Redis: resolves what the p50 difference cannot)",
				Double.isNaN(stub) ? "not measured" : signedUs(stub), check(stub, stub <= 3));
		// memory
		double retained = (this.memory != null) ? this.memory.getOrDefault("retainedBytes", Double.NaN) : Double.NaN;
		double keys = (this.memory != null) ? this.memory.getOrDefault("keys", Double.NaN) : Double.NaN;
		target(String.format(Locale.ROOT, "%,.0f distinct keys: retained heap within a few MB (≤ 5 MB)", keys),
				Double.isNaN(retained) ? "not measured" : mb(retained), check(retained, retained <= 5 * 1024 * 1024));
	}

	private static double nanToMax(double v) {
		return Double.isNaN(v) ? Double.MAX_VALUE : v;
	}

	// ---- JSON

	Map<String, Object> json() {
		Map<String, Object> root = new LinkedHashMap<>();
		root.put("startedAt", this.startedAt.toString());
		root.put("durationSeconds", Math.round(this.seconds));
		root.put("settings", this.settings.describe());
		root.put("machine", this.machine);
		root.put("versions", this.versions);
		List<Object> entries = new ArrayList<>();
		for (Group group : this.plan) {
			for (Candidate candidate : group.candidates()) {
				Job job = new Job(group.scenario(), group.nodes(), candidate);
				List<Map<String, Double>> rounds = this.results.get(job);
				if (rounds == null && !this.failures.containsKey(job)) {
					continue;
				}
				Map<String, Object> entry = new LinkedHashMap<>();
				entry.put("id", job.id());
				entry.put("scenario", job.scenario());
				entry.put("nodes", job.nodes());
				entry.put("candidate", candidate.id());
				entry.put("label", candidate.label());
				entry.put("benchmark", job.benchmark());
				if (rounds != null) {
					Map<String, Object> medians = new LinkedHashMap<>();
					for (String metric : rounds.get(0).keySet()) {
						medians.put(metric, median(job.scenario(), job.nodes(), candidate, metric));
					}
					entry.put("median", medians);
					if (candidate != Candidate.FLOOR && (job.scenario().equals(BenchRunner.LATENCY)
							|| job.scenario().equals(BenchRunner.THROUGHPUT))) {
						String metric = job.scenario().equals(BenchRunner.LATENCY) ? "p50Us" : "opsPerSecond";
						Map<String, Object> vs = new LinkedHashMap<>();
						vs.put(metric + "Ratio", paired(job.scenario(), job.nodes(), candidate, Candidate.FLOOR, metric,
								(x, y) -> x / y));
						if (metric.equals("p50Us")) {
							vs.put("p50DeltaUs", paired(job.scenario(), job.nodes(), candidate, Candidate.FLOOR, metric,
									(x, y) -> x - y));
						}
						entry.put("vsFloor", vs);
					}
					entry.put("rounds", new ArrayList<>(rounds));
				}
				if (this.failures.containsKey(job)) {
					entry.put("failure", this.failures.get(job));
				}
				if (this.errors.containsKey(job)) {
					entry.put("firstError", this.errors.get(job));
				}
				entries.add(entry);
			}
		}
		root.put("results", entries);
		root.put("aspectOverheadP50Us", aspectOverheadUs());
		root.put("aspectOverheadStubUs", aspectStubUs());
		root.put("memory", (this.memory != null) ? this.memory : this.memoryFailure);
		root.put("targets", this.targets);
		return root;
	}

	// ---- markdown

	String markdown() {
		StringBuilder md = new StringBuilder();
		Map<String, Object> m = this.machine;
		md.append("## quorumlock benchmarks, ").append(this.startedAt.toLocalDate()).append("\n\n");
		md.append(String.format(Locale.ROOT,
				"%s run, %.0f s in all. Rounds: %d for latency, %d for throughput and contention; each round runs "
						+ "every candidate once, the candidates of a scenario back to back, and the figures are medians "
						+ "over the rounds. Ratios and differences to the floor are taken within each round, then the "
						+ "median. Each run: %s, warm-up %d × %s (latency) / %s (throughput) / %s (contention), "
						+ "measurement 1 × %s.%n%n",
				this.settings.smoke ? "Smoke" : "Full", this.seconds, this.settings.rounds(BenchRunner.LATENCY),
				this.settings.rounds(BenchRunner.THROUGHPUT),
				(this.settings.forks > 0) ? "a fresh JVM (-Xms1g -Xmx1g)" : "in-process (no fork)",
				this.settings.warmupIterations, this.settings.warmup(BenchRunner.LATENCY),
				this.settings.warmup(BenchRunner.THROUGHPUT), this.settings.warmup(BenchRunner.CONTENTION_THREADS),
				this.settings.measurement));
		md.append(String.format(Locale.ROOT,
				"Machine: %s cores, %s, %s RAM; %s; %s. Redis %s (%s servers on loopback, no persistence). "
						+ "Load average before/after: %s / %s. Commit %s.%n%n",
				m.get("cores"), m.get("cpu"), m.get("memory"), m.get("os"), m.get("jdk"), m.get("redis"),
				m.get("redisServers"), m.get("loadAverageBefore"), m.get("loadAverageAfter"), m.get("commit")));
		Map<String, Object> v = this.versions;
		md.append(String.format(Locale.ROOT,
				"Versions: Lettuce %s, Redisson %s, Spring Integration %s (Spring Data Redis %s), Spring Framework %s, "
						+ "Spring Boot %s, Netty %s, JMH %s.%n%n",
				v.get("lettuce"), v.get("redisson"), v.get("springIntegration"), v.get("springDataRedis"),
				v.get("springFramework"), v.get("springBoot"), v.get("netty"), v.get("jmh")));

		md.append("### Uncontended lock + unlock, 1 thread (µs)\n\n");
		md.append("| nodes | candidate | p50 | p99 | p99.9 | p50 ÷ floor | p50 − floor | JVM CPU/op |\n");
		md.append("|---:|---|---:|---:|---:|---:|---:|---:|\n");
		for (Group group : this.plan) {
			if (!group.scenario().equals(BenchRunner.LATENCY)) {
				continue;
			}
			for (Candidate c : group.candidates()) {
				Job job = new Job(group.scenario(), group.nodes(), c);
				if (failedRow(md, job, 8)) {
					continue;
				}
				if (!this.results.containsKey(job)) {
					continue;
				}
				int n = group.nodes();
				boolean isFloor = c == Candidate.FLOOR;
				md.append(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s | %s | %s | %s |%n", n, label(c, n),
						us(median(group.scenario(), n, c, "p50Us")), us(median(group.scenario(), n, c, "p99Us")),
						us(median(group.scenario(), n, c, "p999Us")),
						isFloor ? "1"
								: ratio(paired(group.scenario(), n, c, Candidate.FLOOR, "p50Us", (x, y) -> x / y)),
						isFloor ? "—"
								: signedUs(paired(group.scenario(), n, c, Candidate.FLOOR, "p50Us", (x, y) -> x - y)),
						us(median(group.scenario(), n, c, "jvmCpuUsPerOp"))));
			}
		}

		md.append("\n### Throughput, 16 threads on distinct keys (lock + unlock pairs per second)\n\n");
		md.append("| nodes | candidate | ops/s | ÷ floor | JVM CPU/op (µs) | Redis CPU/op (µs) | alloc/op (B) |\n"
				+ "|---:|---|---:|---:|---:|---:|---:|\n");
		for (Group group : this.plan) {
			if (!group.scenario().equals(BenchRunner.THROUGHPUT)) {
				continue;
			}
			for (Candidate c : group.candidates()) {
				Job job = new Job(group.scenario(), group.nodes(), c);
				if (failedRow(md, job, 7) || !this.results.containsKey(job)) {
					continue;
				}
				int n = group.nodes();
				md.append(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s | %s | %s |%n", n, label(c, n),
						ops(median(group.scenario(), n, c, "opsPerSecond")),
						(c == Candidate.FLOOR) ? "1"
								: ratio(paired(group.scenario(), n, c, Candidate.FLOOR, "opsPerSecond",
										(x, y) -> x / y)),
						us(median(group.scenario(), n, c, "jvmCpuUsPerOp")),
						us(median(group.scenario(), n, c, "redisCpuUsPerOp")),
						ops(median(group.scenario(), n, c, "allocBytesPerOp"))));
			}
		}

		md.append("\n### Contention on one key, 1 node, 4 threads, empty critical section\n\n");
		md.append("Wait = from the call to entering the critical section. Fairness = the slowest thread's "
				+ "operations ÷ the busiest thread's.\n\n");
		md.append("| clients | candidate | ops/s | wait p50 (ms) | p99 | p99.9 | max | fairness | ops per thread "
				+ "| timeouts |\n|---|---|---:|---:|---:|---:|---:|---:|---|---:|\n");
		for (Group group : this.plan) {
			if (!group.scenario().startsWith("contention")) {
				continue;
			}
			String clients = group.scenario().equals(BenchRunner.CONTENTION_THREADS) ? "1 shared (4 threads)"
					: "4 separate";
			for (Candidate c : group.candidates()) {
				Job job = new Job(group.scenario(), group.nodes(), c);
				if (failedRow(md, job, 10) || !this.results.containsKey(job)) {
					continue;
				}
				String s = group.scenario();
				List<Map<String, Double>> rounds = rounds(s, 1, c);
				Map<String, Double> last = rounds.get(rounds.size() - 1);
				StringBuilder perThread = new StringBuilder();
				for (int i = 0; last.containsKey("opsThread" + i); i++) {
					perThread.append((i > 0) ? " / " : "")
						.append(String.format(Locale.ROOT, "%.0f", last.get("opsThread" + i)));
				}
				double violations = median(s, 1, c, "violations");
				md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", clients,
						c.label() + ((violations > 0) ? " **(exclusion violated)**" : ""),
						ops(median(s, 1, c, "opsPerSecond")), ms(median(s, 1, c, "waitP50Us")),
						ms(median(s, 1, c, "waitP99Us")), ms(median(s, 1, c, "waitP999Us")),
						ms(median(s, 1, c, "waitMaxUs")), fmt(median(s, 1, c, "fairness"), 2), perThread,
						fmt(median(s, 1, c, "timeouts"), 0)));
			}
		}
		md.append("\nOps per thread: the last round. Mutual exclusion was checked in every contention run "
				+ "(a counter only the holder may touch).\n");

		md.append("\n### Aspect overhead and memory\n\n");
		double aspect = aspectOverheadUs();
		String aspectWhy = this.failures.get(new Job(BenchRunner.LATENCY, 1, Candidate.QUORUMLOCK_ASPECT));
		md.append("- `@DistributedLock` minus the programmatic API, p50 on 1 node: ")
			.append(Double.isNaN(aspect) ? "not measured" + ((aspectWhy != null) ? " (" + aspectWhy + ")" : "")
					: signedUs(aspect))
			.append("; the same on a registry that grants at once (no Redis, mean per call): ");
		double stub = aspectStubUs();
		if (Double.isNaN(stub)) {
			md.append("not measured");
		}
		else {
			md.append(String.format(Locale.ROOT, "%s (%s ns annotated, %s ns programmatic)", signedUs(stub),
					ops(median(BenchRunner.ASPECT, 0, Candidate.QUORUMLOCK_ASPECT, "nsPerOp")),
					ops(median(BenchRunner.ASPECT, 0, Candidate.QUORUMLOCK, "nsPerOp"))));
		}
		md.append(".\n");
		if (this.memory != null) {
			md.append(String.format(Locale.ROOT,
					"- Memory: locking and releasing %,.0f distinct keys with quorumlock (%,.0f/s, 64 in flight) "
							+ "left %s of retained heap (%s before, %s after, `System.gc()` then `MemoryMXBean`); "
							+ "%.0f of those lock keys left in Redis.%n",
					this.memory.get("keys"), this.memory.get("opsPerSecond"), mb(this.memory.get("retainedBytes")),
					mb(this.memory.get("beforeBytes")), mb(this.memory.get("afterBytes")),
					this.memory.get("keysLeft")));
		}
		else {
			md.append("- Memory: not measured")
				.append((this.memoryFailure != null) ? " (" + this.memoryFailure + ")" : "")
				.append(".\n");
		}

		SharedScenarios.markdown(md, this, this.plan, this.failures);
		md.append("\n### Targets (issue 7)\n\n| target | measured | status |\n|---|---|---|\n");
		for (Map<String, Object> t : this.targets) {
			md.append("| ")
				.append(t.get("target"))
				.append(" | ")
				.append(t.get("measured"))
				.append(" | ")
				.append(t.get("status"))
				.append(" |\n");
		}
		if (!this.errors.isEmpty()) {
			md.append("\n### Operations that failed during a run (counted, not thrown; warm-up included)\n\n");
			this.errors.forEach((job, why) -> {
				List<Map<String, Double>> rounds = this.results.getOrDefault(job, List.of());
				StringBuilder counts = new StringBuilder();
				for (Map<String, Double> round : rounds) {
					counts.append((counts.length() > 0) ? ", " : "")
						.append(String.format(Locale.ROOT, "%.0f", round.getOrDefault("errors", 0.0)));
				}
				md.append("- `")
					.append(job.id())
					.append("`: ")
					.append(counts)
					.append(" per round; first: ")
					.append(why)
					.append('\n');
			});
		}
		if (!this.failures.isEmpty()) {
			md.append("\n### Not measured\n\n");
			this.failures
				.forEach((job, why) -> md.append("- `").append(job.id()).append("`: ").append(why).append('\n'));
		}
		return md.toString();
	}

	private boolean failedRow(StringBuilder md, Job job, int columns) {
		if (this.results.containsKey(job) || !this.failures.containsKey(job)) {
			return false;
		}
		md.append("| ")
			.append(job.nodes())
			.append(" | ")
			.append(label(job.candidate(), job.nodes()))
			.append(" | not measured, see below");
		md.append(" |".repeat(columns - 2)).append('\n');
		return true;
	}

	private static String label(Candidate c, int nodes) {
		if (c == Candidate.FLOOR && nodes > 1) {
			return "raw Lettuce floor (parallel quorum)";
		}
		return c.label();
	}

	private static String us(double micros) {
		if (Double.isNaN(micros)) {
			return "—";
		}
		return String.format(Locale.ROOT, (micros >= 100) ? "%.0f" : "%.1f", micros);
	}

	private static String signedUs(double micros) {
		if (Double.isNaN(micros)) {
			return "—";
		}
		return String.format(Locale.ROOT, "%+.1f µs", micros);
	}

	private static String ms(double micros) {
		if (Double.isNaN(micros)) {
			return "—";
		}
		double millis = micros / 1000.0;
		return String.format(Locale.ROOT, (millis >= 10) ? "%.0f" : (millis >= 1) ? "%.1f" : "%.2f", millis);
	}

	private static String ops(double ops) {
		return Double.isNaN(ops) ? "—" : String.format(Locale.ROOT, "%,.0f", ops);
	}

	private static String ratio(double ratio) {
		return Double.isNaN(ratio) ? "—" : String.format(Locale.ROOT, "%.2f×", ratio);
	}

	private static String fmt(double value, int decimals) {
		return Double.isNaN(value) ? "—" : String.format(Locale.ROOT, "%." + decimals + "f", value);
	}

	private static String mb(Double bytes) {
		if (bytes == null || Double.isNaN(bytes)) {
			return "—";
		}
		return String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024.0));
	}

}
