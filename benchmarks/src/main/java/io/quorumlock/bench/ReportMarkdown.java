package io.quorumlock.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.quorumlock.bench.BenchRunner.Group;
import io.quorumlock.bench.BenchRunner.Job;
import io.quorumlock.bench.candidates.Candidate;

import static io.quorumlock.bench.Formats.us;
import static io.quorumlock.bench.Formats.signedUs;
import static io.quorumlock.bench.Formats.ms;
import static io.quorumlock.bench.Formats.ops;
import static io.quorumlock.bench.Formats.ratio;
import static io.quorumlock.bench.Formats.fmt;
import static io.quorumlock.bench.Formats.mb;
import static io.quorumlock.bench.Formats.label;

/**
 * The markdown rendering of a {@link Report}.
 */
final class ReportMarkdown {

	private final Report report;

	private final Figures figures;

	private final List<Map<String, Object>> targets;

	ReportMarkdown(Report report, Figures figures, List<Map<String, Object>> targets) {
		this.report = report;
		this.figures = figures;
		this.targets = targets;
	}

	String render() {
		StringBuilder md = new StringBuilder();
		Map<String, Object> m = this.report.machine();
		md.append("## quorumlock benchmarks, ").append(this.report.startedAt().toLocalDate()).append("\n\n");
		md.append(String.format(Locale.ROOT,
				"%s run, %.0f s in all. Rounds: %d for latency, %d for throughput and contention; each round runs "
						+ "every candidate once, the candidates of a scenario back to back, and the figures are medians "
						+ "over the rounds. Ratios and differences to the floor are taken within each round, then the "
						+ "median. Each run: %s, warm-up %d × %s (latency) / %s (throughput) / %s (contention), "
						+ "measurement 1 × %s.%n%n",
				this.report.settings().smoke ? "Smoke" : "Full", this.report.seconds(),
				this.report.settings().rounds(BenchRunner.LATENCY),
				this.report.settings().rounds(BenchRunner.THROUGHPUT),
				(this.report.settings().forks > 0) ? "a fresh JVM (-Xms1g -Xmx1g)" : "in-process (no fork)",
				this.report.settings().warmupIterations, this.report.settings().warmup(BenchRunner.LATENCY),
				this.report.settings().warmup(BenchRunner.THROUGHPUT),
				this.report.settings().warmup(BenchRunner.CONTENTION_THREADS), this.report.settings().measurement));
		md.append(String.format(Locale.ROOT,
				"Machine: %s cores, %s, %s RAM; %s; %s. Redis %s (%s servers on loopback, no persistence). "
						+ "Load average before/after: %s / %s. Commit %s.%n%n",
				m.get("cores"), m.get("cpu"), m.get("memory"), m.get("os"), m.get("jdk"), m.get("redis"),
				m.get("redisServers"), m.get("loadAverageBefore"), m.get("loadAverageAfter"), m.get("commit")));
		Map<String, Object> v = this.report.versions();
		md.append(String.format(Locale.ROOT,
				"Versions: Lettuce %s, Redisson %s, Spring Integration %s (Spring Data Redis %s), Spring Framework %s, "
						+ "Spring Boot %s, Netty %s, JMH %s.%n%n",
				v.get("lettuce"), v.get("redisson"), v.get("springIntegration"), v.get("springDataRedis"),
				v.get("springFramework"), v.get("springBoot"), v.get("netty"), v.get("jmh")));

		md.append("### Uncontended lock + unlock, 1 thread (µs)\n\n");
		md.append("| nodes | candidate | p50 | p99 | p99.9 | p50 ÷ floor | p50 − floor | JVM CPU/op |\n");
		md.append("|---:|---|---:|---:|---:|---:|---:|---:|\n");
		for (Group group : this.report.plan()) {
			if (!group.scenario().equals(BenchRunner.LATENCY)) {
				continue;
			}
			for (Candidate c : group.candidates()) {
				Job job = new Job(group.scenario(), group.nodes(), c);
				if (failedRow(md, job, 8)) {
					continue;
				}
				if (!this.report.results().containsKey(job)) {
					continue;
				}
				int n = group.nodes();
				boolean isFloor = c == Candidate.FLOOR;
				md.append(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s | %s | %s | %s |%n", n, label(c, n),
						us(this.figures.median(group.scenario(), n, c, "p50Us")),
						us(this.figures.median(group.scenario(), n, c, "p99Us")),
						us(this.figures.median(group.scenario(), n, c, "p999Us")),
						isFloor ? "1"
								: ratio(this.figures.paired(group.scenario(), n, c, Candidate.FLOOR, "p50Us",
										(x, y) -> x / y)),
						isFloor ? "—"
								: signedUs(this.figures.paired(group.scenario(), n, c, Candidate.FLOOR, "p50Us",
										(x, y) -> x - y)),
						us(this.figures.median(group.scenario(), n, c, "jvmCpuUsPerOp"))));
			}
		}

		md.append("\n### Throughput, 16 threads on distinct keys (lock + unlock pairs per second)\n\n");
		md.append("| nodes | candidate | ops/s | ÷ floor | JVM CPU/op (µs) | Redis CPU/op (µs) | alloc/op (B) |\n"
				+ "|---:|---|---:|---:|---:|---:|---:|\n");
		for (Group group : this.report.plan()) {
			if (!group.scenario().equals(BenchRunner.THROUGHPUT)) {
				continue;
			}
			for (Candidate c : group.candidates()) {
				Job job = new Job(group.scenario(), group.nodes(), c);
				if (failedRow(md, job, 7) || !this.report.results().containsKey(job)) {
					continue;
				}
				int n = group.nodes();
				md.append(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s | %s | %s |%n", n, label(c, n),
						ops(this.figures.median(group.scenario(), n, c, "opsPerSecond")),
						(c == Candidate.FLOOR) ? "1"
								: ratio(this.figures.paired(group.scenario(), n, c, Candidate.FLOOR, "opsPerSecond",
										(x, y) -> x / y)),
						us(this.figures.median(group.scenario(), n, c, "jvmCpuUsPerOp")),
						us(this.figures.median(group.scenario(), n, c, "redisCpuUsPerOp")),
						ops(this.figures.median(group.scenario(), n, c, "allocBytesPerOp"))));
			}
		}

		md.append("\n### Contention on one key, 1 node, 4 threads, empty critical section\n\n");
		md.append("Wait = from the call to entering the critical section. Fairness = the slowest thread's "
				+ "operations ÷ the busiest thread's.\n\n");
		md.append("| clients | candidate | ops/s | wait p50 (ms) | p99 | p99.9 | max | fairness | ops per thread "
				+ "| timeouts |\n|---|---|---:|---:|---:|---:|---:|---:|---|---:|\n");
		for (Group group : this.report.plan()) {
			if (!group.scenario().startsWith("contention")) {
				continue;
			}
			String clients = group.scenario().equals(BenchRunner.CONTENTION_THREADS) ? "1 shared (4 threads)"
					: "4 separate";
			for (Candidate c : group.candidates()) {
				Job job = new Job(group.scenario(), group.nodes(), c);
				if (failedRow(md, job, 10) || !this.report.results().containsKey(job)) {
					continue;
				}
				String s = group.scenario();
				List<Map<String, Double>> rounds = this.figures.rounds(s, 1, c);
				Map<String, Double> last = rounds.get(rounds.size() - 1);
				StringBuilder perThread = new StringBuilder();
				for (int i = 0; last.containsKey("opsThread" + i); i++) {
					perThread.append((i > 0) ? " / " : "")
						.append(String.format(Locale.ROOT, "%.0f", last.get("opsThread" + i)));
				}
				double violations = this.figures.median(s, 1, c, "violations");
				md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", clients,
						c.label() + ((violations > 0) ? " **(exclusion violated)**" : ""),
						ops(this.figures.median(s, 1, c, "opsPerSecond")),
						ms(this.figures.median(s, 1, c, "waitP50Us")), ms(this.figures.median(s, 1, c, "waitP99Us")),
						ms(this.figures.median(s, 1, c, "waitP999Us")), ms(this.figures.median(s, 1, c, "waitMaxUs")),
						fmt(this.figures.median(s, 1, c, "fairness"), 2), perThread,
						fmt(this.figures.median(s, 1, c, "timeouts"), 0)));
			}
		}
		md.append("\nOps per thread: the last round. Mutual exclusion was checked in every contention run "
				+ "(a counter only the holder may touch).\n");

		md.append("\n### Aspect overhead and memory\n\n");
		double aspect = this.figures.aspectOverheadUs();
		String aspectWhy = this.report.failures().get(new Job(BenchRunner.LATENCY, 1, Candidate.QUORUMLOCK_ASPECT));
		md.append("- `@DistributedLock` minus the programmatic API, p50 on 1 node: ")
			.append(Double.isNaN(aspect) ? "not measured" + ((aspectWhy != null) ? " (" + aspectWhy + ")" : "")
					: signedUs(aspect))
			.append("; the same on a registry that grants at once (no Redis, mean per call): ");
		double stub = this.figures.aspectStubUs();
		if (Double.isNaN(stub)) {
			md.append("not measured");
		}
		else {
			md.append(String.format(Locale.ROOT, "%s (%s ns annotated, %s ns programmatic)", signedUs(stub),
					ops(this.figures.median(BenchRunner.ASPECT, 0, Candidate.QUORUMLOCK_ASPECT, "nsPerOp")),
					ops(this.figures.median(BenchRunner.ASPECT, 0, Candidate.QUORUMLOCK, "nsPerOp"))));
		}
		md.append(".\n");
		if (this.report.memory() != null) {
			md.append(String.format(Locale.ROOT,
					"- Memory: locking and releasing %,.0f distinct keys with quorumlock (%,.0f/s, 64 in flight) "
							+ "left %s of retained heap (%s before, %s after, `System.gc()` then `MemoryMXBean`); "
							+ "%.0f of those lock keys left in Redis.%n",
					this.report.memory().get("keys"), this.report.memory().get("opsPerSecond"),
					mb(this.report.memory().get("retainedBytes")), mb(this.report.memory().get("beforeBytes")),
					mb(this.report.memory().get("afterBytes")), this.report.memory().get("keysLeft")));
		}
		else {
			md.append("- Memory: not measured")
				.append((this.report.memoryFailure() != null) ? " (" + this.report.memoryFailure() + ")" : "")
				.append(".\n");
		}

		SharedScenarios.markdown(md, this.report, this.report.plan(), this.report.failures());
		md.append("\n### Targets\n\n| target | measured | status |\n|---|---|---|\n");
		for (Map<String, Object> t : this.targets) {
			md.append("| ")
				.append(t.get("target"))
				.append(" | ")
				.append(t.get("measured"))
				.append(" | ")
				.append(t.get("status"))
				.append(" |\n");
		}
		if (!this.report.errors().isEmpty()) {
			md.append("\n### Operations that failed during a run (counted, not thrown; warm-up included)\n\n");
			this.report.errors().forEach((job, why) -> {
				List<Map<String, Double>> rounds = this.report.results().getOrDefault(job, List.of());
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
		if (!this.report.failures().isEmpty()) {
			md.append("\n### Not measured\n\n");
			this.report.failures()
				.forEach((job, why) -> md.append("- `").append(job.id()).append("`: ").append(why).append('\n'));
		}
		return md.toString();
	}

	private boolean failedRow(StringBuilder md, Job job, int columns) {
		if (this.report.results().containsKey(job) || !this.report.failures().containsKey(job)) {
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

}
