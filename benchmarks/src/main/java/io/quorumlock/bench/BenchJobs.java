package io.quorumlock.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.util.Statistics;

import io.quorumlock.bench.BenchRunner.Job;

/**
 * Runs one {@link Job} in JMH, or the memory check in a child JVM, and returns its
 * figures; keeps the first error message of each job that counted errors.
 */
final class BenchJobs {

	private final BenchSettings settings;

	private final List<String> nodes;

	/** The first error message of each job that counted errors. */
	private final Map<Job, String> errors = new LinkedHashMap<>();

	BenchJobs(BenchSettings settings, List<String> nodes) {
		this.settings = settings;
		this.nodes = nodes;
	}

	Map<Job, String> errors() {
		return this.errors;
	}

	Map<String, Double> run(Job job) throws RunnerException, IOException {
		Path stats = Files.createTempFile("quorumlock-bench-", ".stats");
		try {
			String nodesCsv = String.join(",", this.nodes);
			ChainedOptionsBuilder options = new OptionsBuilder().include("^" + Pattern.quote(job.benchmark()) + "$")
				.param("candidate", job.candidate().id())
				.param("nodes", Integer.toString(job.nodes()))
				.forks(this.settings.forks)
				.warmupIterations(this.settings.warmupIterations)
				.warmupTime(this.settings.warmup(job.scenario()))
				.measurementIterations(1)
				.measurementTime(this.settings.measurement)
				.timeout(TimeValue.minutes(2))
				.addProfiler(CpuProfiler.class)
				.addProfiler(GCProfiler.class)
				.shouldFailOnError(true);
			if (this.settings.forks > 0) {
				List<String> jvmArgs = new ArrayList<>(List.of("-Xms1g", "-Xmx1g", "-Dbench.nodes=" + nodesCsv,
						"-D" + ContentionBenchmark.STATS_PROPERTY + "=" + stats));
				jvmArgs.addAll(this.settings.jvmArgs);
				options.jvmArgs(jvmArgs.toArray(String[]::new));
			}
			else {
				System.setProperty(BenchNodes.PROPERTY, nodesCsv);
				System.setProperty(ContentionBenchmark.STATS_PROPERTY, stats.toString());
			}
			Collection<RunResult> runs = new Runner(options.build()).run();
			if (runs.isEmpty()) {
				throw new IllegalStateException("no result");
			}
			RunResult run = runs.iterator().next();
			Result<?> primary = run.getPrimaryResult();
			Map<String, Double> metrics = new LinkedHashMap<>();
			if (SharedScenarios.like(job.scenario()).equals(BenchRunner.LATENCY)) {
				Statistics statistics = primary.getStatistics();
				metrics.put("p50Us", statistics.getPercentile(50));
				metrics.put("p99Us", statistics.getPercentile(99));
				metrics.put("p999Us", statistics.getPercentile(99.9));
				metrics.put("meanUs", statistics.getMean());
				metrics.put("samples", (double) statistics.getN());
			}
			else if (job.scenario().equals(BenchRunner.ASPECT)) {
				metrics.put("nsPerOp", primary.getScore());
			}
			else {
				metrics.put("opsPerSecond", primary.getScore());
			}
			Map<String, Result> secondary = run.getSecondaryResults();
			for (String[] name : new String[][] { { "cpu.jvm", "jvmCpuUsPerOp" }, { "cpu.redis", "redisCpuUsPerOp" },
					{ "gc.alloc.rate.norm", "allocBytesPerOp" } }) {
				Result<?> result = secondary.get(name[0]);
				if (result != null) {
					metrics.put(name[1], result.getScore());
				}
			}
			List<String> lines = Files.readAllLines(stats);
			if (lines.isEmpty()) {
				throw new IllegalStateException("the benchmark's statistics were not written");
			}
			String last = lines.get(lines.size() - 1);
			int firstError = last.indexOf(" firstError=");
			if (firstError >= 0) {
				this.errors.putIfAbsent(job, last.substring(firstError + " firstError=".length()));
				last = last.substring(0, firstError);
			}
			Map<String, String> line = BenchRunner.keyValues(last);
			metrics.put("errors", Double.parseDouble(line.getOrDefault("errors", "0")));
			if (job.scenario().startsWith("contention")) {
				for (String name : List.of("fairness", "waitP50Us", "waitP99Us", "waitP999Us", "waitMaxUs", "timeouts",
						"violations")) {
					metrics.put(name, Double.parseDouble(line.get(name)));
				}
				String ops = line.get("ops").replaceAll("[\\[\\]]", "");
				int thread = 0;
				for (String count : ops.split(",")) {
					metrics.put("opsThread" + thread++, Double.parseDouble(count));
				}
			}
			return metrics;
		}
		finally {
			Files.deleteIfExists(stats);
		}
	}

	Map<String, Double> memoryCheck() throws IOException {
		String java = ProcessHandle.current().info().command().orElse("java");
		List<String> command = List.of(java, "-Xms1g", "-Xmx1g", "-Dbench.nodes=" + String.join(",", this.nodes), "-cp",
				System.getProperty("java.class.path"), MemoryCheck.class.getName(),
				Integer.toString(this.settings.memoryKeys), "1");
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String memoryLine = null;
		try (InputStream in = process.getInputStream()) {
			for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
				System.out.println(line);
				if (line.startsWith("[memory] ")) {
					memoryLine = line;
				}
			}
		}
		try {
			if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0 || memoryLine == null) {
				throw new IllegalStateException("MemoryCheck failed (exit " + process.exitValue() + ")");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted", ex);
		}
		Map<String, Double> metrics = new LinkedHashMap<>();
		BenchRunner.keyValues(memoryLine.substring("[memory] ".length()))
			.forEach((k, v) -> metrics.put(k, Double.parseDouble(v)));
		return metrics;
	}

}
