package io.quorumlock.bench;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.quorumlock.bench.BenchRunner.Group;
import io.quorumlock.bench.BenchRunner.Job;
import io.quorumlock.bench.candidates.Candidate;

/**
 * A run's results with where and how it ran, rendered as JSON ({@link #json()}) and
 * markdown ({@link #markdown()}): medians over the rounds, ratios to the floor within
 * each round ({@link Figures}), and the targets ({@link Targets}).
 */
record Report(BenchSettings settings, OffsetDateTime startedAt, double seconds, Map<String, Object> machine,
		Map<String, Object> versions, List<Group> plan, Map<Job, List<Map<String, Double>>> results,
		Map<Job, String> failures, Map<Job, String> errors, Map<String, Double> memory, String memoryFailure) {

	private Figures figures() {
		return new Figures(this.results);
	}

	/** The median of a metric over the rounds of one scenario, nodes and candidate. */
	Double median(String scenario, int nodes, Candidate candidate, String metric) {
		return figures().median(scenario, nodes, candidate, metric);
	}

	Map<String, Object> json() {
		Figures figures = figures();
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
						medians.put(metric, figures.median(job.scenario(), job.nodes(), candidate, metric));
					}
					entry.put("median", medians);
					if (candidate != Candidate.FLOOR && (job.scenario().equals(BenchRunner.LATENCY)
							|| job.scenario().equals(BenchRunner.THROUGHPUT))) {
						String metric = job.scenario().equals(BenchRunner.LATENCY) ? "p50Us" : "opsPerSecond";
						Map<String, Object> vs = new LinkedHashMap<>();
						vs.put(metric + "Ratio", figures.paired(job.scenario(), job.nodes(), candidate, Candidate.FLOOR,
								metric, (x, y) -> x / y));
						if (metric.equals("p50Us")) {
							vs.put("p50DeltaUs", figures.paired(job.scenario(), job.nodes(), candidate, Candidate.FLOOR,
									metric, (x, y) -> x - y));
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
		root.put("aspectOverheadP50Us", figures.aspectOverheadUs());
		root.put("aspectOverheadStubUs", figures.aspectStubUs());
		root.put("memory", (this.memory != null) ? this.memory : this.memoryFailure);
		root.put("targets", Targets.evaluate(figures, this.failures, this.memory));
		return root;
	}

	String markdown() {
		Figures figures = figures();
		return new ReportMarkdown(this, figures, Targets.evaluate(figures, this.failures, this.memory)).render();
	}

}
