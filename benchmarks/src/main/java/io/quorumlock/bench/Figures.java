package io.quorumlock.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleBinaryOperator;

import io.quorumlock.bench.BenchRunner.Job;
import io.quorumlock.bench.candidates.Candidate;

/**
 * The figures of a run: medians over the rounds, and ratios or differences of two
 * candidates taken within each round, then the median.
 */
final class Figures {

	private final Map<Job, List<Map<String, Double>>> results;

	Figures(Map<Job, List<Map<String, Double>>> results) {
		this.results = results;
	}

	List<Map<String, Double>> rounds(String scenario, int nodes, Candidate candidate) {
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

	Double aspectOverheadUs() {
		return paired(BenchRunner.LATENCY, 1, Candidate.QUORUMLOCK_ASPECT, Candidate.QUORUMLOCK, "p50Us",
				(x, y) -> x - y);
	}

	/** The aspect's own cost without Redis, in µs. */
	Double aspectStubUs() {
		return paired(BenchRunner.ASPECT, 0, Candidate.QUORUMLOCK_ASPECT, Candidate.QUORUMLOCK, "nsPerOp",
				(x, y) -> (x - y) / 1000.0);
	}

}
