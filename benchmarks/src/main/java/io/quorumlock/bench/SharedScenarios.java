package io.quorumlock.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.quorumlock.bench.BenchRunner.Group;
import io.quorumlock.bench.BenchRunner.Job;
import io.quorumlock.bench.candidates.Candidate;

/**
 * The shared-lock and permit scenarios, registered in {@link BenchRunner}'s plan and
 * rendered in {@link Report}'s markdown: acquire + release latency of one thread on one
 * key ({@link LatencyBenchmark}), and throughput of 16 threads on a few keys
 * ({@link SharedThroughputBenchmark}), for quorumlock's shared mode and permits on 1, 3
 * and 5 masters and for Redisson's read lock and expirable semaphore on one node.
 * {@code --only 'shared|permit'} runs just these.
 */
final class SharedScenarios {

	/** Acquire + release by one thread, uncontended. */
	static final String LATENCY = "shared-latency";

	/** 16 threads on {@link SharedThroughputBenchmark#KEYS} keys. */
	static final String THROUGHPUT = "shared-throughput";

	private static final List<Candidate> SINGLE = List.of(Candidate.QUORUMLOCK_SHARED, Candidate.REDISSON_SHARED,
			Candidate.QUORUMLOCK_PERMITS, Candidate.REDISSON_PERMITS);

	private static final List<Candidate> QUORUM = List.of(Candidate.QUORUMLOCK_SHARED, Candidate.QUORUMLOCK_PERMITS);

	/** Each quorumlock candidate and its Redisson counterpart on one node. */
	private static final Map<Candidate, Candidate> PEERS = Map.of(Candidate.QUORUMLOCK_SHARED,
			Candidate.REDISSON_SHARED, Candidate.QUORUMLOCK_PERMITS, Candidate.REDISSON_PERMITS);

	private SharedScenarios() {
	}

	/** The given plan followed by these scenarios' groups. */
	static List<Group> with(List<Group> plan) {
		List<Group> all = new ArrayList<>(plan);
		for (String scenario : List.of(LATENCY, THROUGHPUT)) {
			all.add(new Group(scenario, 1, SINGLE));
			all.add(new Group(scenario, 3, QUORUM));
			all.add(new Group(scenario, 5, QUORUM));
		}
		return List.copyOf(all);
	}

	/** The JMH benchmark method of one of these scenarios. */
	static String benchmark(String scenario) {
		return switch (scenario) {
			case LATENCY -> LatencyBenchmark.class.getName() + ".lockUnlock";
			case THROUGHPUT -> SharedThroughputBenchmark.class.getName() + ".fewKeys";
			default -> throw new IllegalStateException(scenario);
		};
	}

	/**
	 * The exclusive scenario whose rounds, warm-up and metrics a scenario takes: these
	 * measure what {@code latency} and {@code throughput} measure.
	 */
	static String like(String scenario) {
		return switch (scenario) {
			case LATENCY -> BenchRunner.LATENCY;
			case THROUGHPUT -> BenchRunner.THROUGHPUT;
			default -> scenario;
		};
	}

	/** Append the section of these scenarios, if any ran. */
	static void markdown(StringBuilder md, Report report, List<Group> plan, Map<Job, String> failures) {
		List<Group> groups = plan.stream().filter((g) -> g.scenario().startsWith("shared-")).toList();
		md.append("\n### Shared locks and permits\n\n");
		md.append("Shared: quorumlock `LockMode.SHARED`, Redisson `RReadWriteLock.readLock()`. Permits: one of ")
			.append(Candidate.PERMITS)
			.append(" (quorumlock `permits(")
			.append(Candidate.PERMITS)
			.append(")`, Redisson `RPermitExpirableSemaphore` with a lease, released by permit id). Every grant "
					+ "has the same 30 s lease. ÷ Redisson: quorumlock's figure over Redisson's on one node, in the "
					+ "same round.\n\n");
		md.append("Acquire + release, 1 thread, uncontended (µs):\n\n");
		md.append("| nodes | candidate | p50 | p99 | p99.9 | p50 ÷ Redisson | JVM CPU/op |\n");
		md.append("|---:|---|---:|---:|---:|---:|---:|\n");
		rows(md, groups, LATENCY, failures, (n, c) -> report.median(LATENCY, n, c, "p50Us"),
				(n, c) -> row(us(report.median(LATENCY, n, c, "p50Us")), us(report.median(LATENCY, n, c, "p99Us")),
						us(report.median(LATENCY, n, c, "p999Us")), vsPeer(report, LATENCY, n, c, "p50Us"),
						us(report.median(LATENCY, n, c, "jvmCpuUsPerOp"))));
		md.append("\n16 threads on ")
			.append(SharedThroughputBenchmark.KEYS)
			.append(" keys, 4 a key, waiting up to 10 s for a permit (acquire + release pairs per second):\n\n");
		md.append("| nodes | candidate | ops/s | ÷ Redisson | JVM CPU/op (µs) | Redis CPU/op (µs) | alloc/op (B) "
				+ "| errors |\n|---:|---|---:|---:|---:|---:|---:|---:|\n");
		rows(md, groups, THROUGHPUT, failures, (n, c) -> report.median(THROUGHPUT, n, c, "opsPerSecond"),
				(n, c) -> row(ops(report.median(THROUGHPUT, n, c, "opsPerSecond")),
						vsPeer(report, THROUGHPUT, n, c, "opsPerSecond"),
						us(report.median(THROUGHPUT, n, c, "jvmCpuUsPerOp")),
						us(report.median(THROUGHPUT, n, c, "redisCpuUsPerOp")),
						ops(report.median(THROUGHPUT, n, c, "allocBytesPerOp")),
						ops(report.median(THROUGHPUT, n, c, "errors"))));
	}

	private interface Cells {

		String of(int nodes, Candidate candidate);

	}

	private interface Figure {

		double of(int nodes, Candidate candidate);

	}

	/** A row per candidate that ran: {@code measured} is NaN for those that did not. */
	private static void rows(StringBuilder md, List<Group> groups, String scenario, Map<Job, String> failures,
			Figure measured, Cells cells) {
		for (Group group : groups) {
			if (!group.scenario().equals(scenario)) {
				continue;
			}
			for (Candidate c : group.candidates()) {
				Job job = new Job(scenario, group.nodes(), c);
				if (failures.containsKey(job)) {
					md.append("| ").append(group.nodes()).append(" | ").append(c.label());
					md.append(" | not measured, see below |\n");
				}
				else if (!Double.isNaN(measured.of(group.nodes(), c))) {
					md.append("| ").append(group.nodes()).append(" | ").append(c.label()).append(" | ");
					md.append(cells.of(group.nodes(), c)).append(" |\n");
				}
			}
		}
	}

	private static String row(String... cells) {
		return String.join(" | ", cells);
	}

	private static String vsPeer(Report report, String scenario, int nodes, Candidate c, String metric) {
		Candidate peer = PEERS.get(c);
		if (nodes != 1 || peer == null) {
			return "—";
		}
		Double ratio = new Figures(report.results()).paired(scenario, 1, c, peer, metric, (x, y) -> x / y);
		return (ratio == null || ratio.isNaN()) ? "—" : String.format(Locale.ROOT, "%.2f×", ratio);
	}

	private static String us(double micros) {
		return Double.isNaN(micros) ? "—" : String.format(Locale.ROOT, (micros >= 100) ? "%.0f" : "%.1f", micros);
	}

	private static String ops(double value) {
		return Double.isNaN(value) ? "—" : String.format(Locale.ROOT, "%,.0f", value);
	}

}
