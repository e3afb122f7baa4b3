package io.quorumlock.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.quorumlock.bench.BenchRunner.Job;
import io.quorumlock.bench.candidates.Candidate;

import static io.quorumlock.bench.Formats.us;
import static io.quorumlock.bench.Formats.signedUs;
import static io.quorumlock.bench.Formats.ms;
import static io.quorumlock.bench.Formats.ratio;
import static io.quorumlock.bench.Formats.fmt;
import static io.quorumlock.bench.Formats.mb;

/**
 * The targets, each with what was measured and whether it was met ("n/a" when a
 * figure is missing).
 */
final class Targets {

	private final Figures figures;

	private final Map<Job, String> failures;

	private final Map<String, Double> memory;

	private final List<Map<String, Object>> targets = new ArrayList<>();

	private Targets(Figures figures, Map<Job, String> failures, Map<String, Double> memory) {
		this.figures = figures;
		this.failures = failures;
		this.memory = memory;
	}

	static List<Map<String, Object>> evaluate(Figures figures, Map<Job, String> failures, Map<String, Double> memory) {
		Targets targets = new Targets(figures, failures, memory);
		targets.evaluate();
		return targets.targets;
	}

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

	private void evaluate() {
		String lat = BenchRunner.LATENCY;
		String tp = BenchRunner.THROUGHPUT;
		Candidate ql = Candidate.QUORUMLOCK;
		Candidate floor = Candidate.FLOOR;
		// single node, uncontended
		double ratio = this.figures.paired(lat, 1, ql, floor, "p50Us", (x, y) -> x / y);
		double delta = this.figures.paired(lat, 1, ql, floor, "p50Us", (x, y) -> x - y);
		target("1 node, uncontended p50 ≤ 1.10× floor", ratio(ratio) + " (" + signedUs(delta) + ")",
				check(ratio, ratio <= 1.10));
		target("1 node, uncontended p50 ≤ floor + 15 µs", signedUs(delta), check(delta, delta <= 15));
		double qlP50 = this.figures.median(lat, 1, ql, "p50Us");
		double spin = this.figures.median(lat, 1, Candidate.SI_SPIN, "p50Us");
		double pubsub = this.figures.median(lat, 1, Candidate.SI_PUBSUB, "p50Us");
		double si = Math.min(nanToMax(spin), nanToMax(pubsub));
		target("1 node, uncontended p50 ≤ Spring Integration's",
				us(qlP50) + " µs vs " + us(spin) + " (spin), " + us(pubsub) + " (pub/sub)",
				check(qlP50 + ((si == Double.MAX_VALUE) ? Double.NaN : 0), qlP50 <= si));
		// throughput, one node
		double tpRatio = this.figures.paired(tp, 1, ql, floor, "opsPerSecond", (x, y) -> x / y);
		target("16 threads, distinct keys ≥ 0.95× floor", ratio(tpRatio), check(tpRatio, tpRatio >= 0.95));
		double lease = this.figures.paired(tp, 1, ql, Candidate.REDISSON_LEASE, "opsPerSecond", (x, y) -> x / y);
		double watchdog = this.figures.paired(tp, 1, ql, Candidate.REDISSON_WATCHDOG, "opsPerSecond", (x, y) -> x / y);
		double vsRedisson = Math.min(nanToMax(lease), nanToMax(watchdog));
		target("16 threads, distinct keys ≥ 2.5× Redisson",
				ratio(lease) + " RLock lease, " + ratio(watchdog) + " RLock watchdog",
				check((vsRedisson == Double.MAX_VALUE) ? Double.NaN : vsRedisson, vsRedisson >= 2.5));
		// quorum
		for (int n : new int[] { 3, 5 }) {
			double qRatio = this.figures.paired(lat, n, ql, floor, "p50Us", (x, y) -> x / y);
			double qDelta = this.figures.paired(lat, n, ql, floor, "p50Us", (x, y) -> x - y);
			target(n + " nodes, uncontended p50 ≤ 1.15× parallel floor", ratio(qRatio) + " (" + signedUs(qDelta) + ")",
					check(qRatio, qRatio <= 1.15));
			double speedup = this.figures.paired(lat, n, Candidate.REDISSON_REDLOCK, ql, "p50Us", (x, y) -> x / y);
			target(n + " nodes, uncontended p50 ≥ 4× faster than RedissonRedLock", ratio(speedup) + " faster",
					check(speedup, speedup >= 4));
			double qTp = this.figures.paired(tp, n, ql, floor, "opsPerSecond", (x, y) -> x / y);
			target(n + " nodes, 16 threads ≥ 0.9× parallel floor", ratio(qTp), check(qTp, qTp >= 0.9));
		}
		// contention
		String threads = BenchRunner.CONTENTION_THREADS;
		double vsSi = this.figures.paired(threads, 1, ql, Candidate.SI_PUBSUB, "opsPerSecond", (x, y) -> x / y);
		target("one key, 4 threads: ops/s ≥ Spring Integration pub/sub", ratio(vsSi), check(vsSi, vsSi >= 1.0));
		double fairness = this.figures.median(threads, 1, ql, "fairness");
		target("one key, 4 threads: fairness ≥ 0.8", fmt(fairness, 2), check(fairness, fairness >= 0.8));
		double p999 = this.figures.median(threads, 1, ql, "waitP999Us");
		target("one key, 4 threads: wait p99.9 ≤ 10 ms", ms(p999) + " ms", check(p999, p999 <= 10_000));
		double clients = this.figures.paired(BenchRunner.CONTENTION_CLIENTS, 1, ql, Candidate.REDISSON_LEASE,
				"opsPerSecond", (x, y) -> x / y);
		target("one key, 4 clients: ops/s ≥ 1.5× Redisson", ratio(clients), check(clients, clients >= 1.5));
		// aspect
		double aspect = this.figures.aspectOverheadUs();
		String aspectWhy = this.failures.get(new Job(lat, 1, Candidate.QUORUMLOCK_ASPECT));
		target("aspect overhead ≤ 3 µs at p50", Double.isNaN(aspect)
				? "not measured" + ((aspectWhy != null) ? ": " + aspectWhy : "") : signedUs(aspect),
				check(aspect, aspect <= 3));
		double stub = this.figures.aspectStubUs();
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

}
