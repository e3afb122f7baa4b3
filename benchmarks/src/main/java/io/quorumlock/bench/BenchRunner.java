package io.quorumlock.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.openjdk.jmh.runner.RunnerException;

import io.quorumlock.bench.candidates.Candidate;

/**
 * Runs every scenario for every candidate on the servers of {@code bench.nodes}, in
 * rounds (each round runs every candidate once, candidates of a scenario back to back,
 * their order rotated from round to round), then writes {@code <date>.json} and
 * {@code <date>.md} with the medians over the rounds; ratios to the floor are taken
 * within each round, then the median. Started by {@code run.sh}; see {@code --help}.
 */
public final class BenchRunner {

	static final String LATENCY = "latency";

	static final String THROUGHPUT = "throughput";

	static final String CONTENTION_THREADS = "contention-threads";

	static final String CONTENTION_CLIENTS = "contention-clients";

	static final String ASPECT = "aspect";

	/**
	 * Marks the failure of a candidate that cannot run here (not counted as an error).
	 */
	static final String UNAVAILABLE = "is unavailable";

	/** One benchmark of one candidate on N nodes. */
	record Job(String scenario, int nodes, Candidate candidate) {

		String benchmark() {
			return switch (this.scenario) {
				case LATENCY -> LatencyBenchmark.class.getName() + ".lockUnlock";
				case THROUGHPUT -> ThroughputBenchmark.class.getName() + ".distinctKeys";
				case CONTENTION_THREADS -> ContentionBenchmark.class.getName() + ".oneClient";
				case CONTENTION_CLIENTS -> ContentionBenchmark.class.getName() + ".fourClients";
				case ASPECT -> AspectOverheadBenchmark.class.getName() + ".call";
				default -> SharedScenarios.benchmark(this.scenario);
			};
		}

		String id() {
			return this.scenario + "/" + this.nodes + "/" + this.candidate.id();
		}

	}

	/** Candidates of one scenario on N nodes; rotated together. */
	record Group(String scenario, int nodes, List<Candidate> candidates) {

		List<Job> jobs(int round) {
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < this.candidates.size(); i++) {
				jobs.add(new Job(this.scenario, this.nodes, this.candidates.get((i + round) % this.candidates.size())));
			}
			return jobs;
		}

	}

	static List<Group> plan() {
		List<Candidate> single = List.of(Candidate.FLOOR, Candidate.QUORUMLOCK, Candidate.QUORUMLOCK_ASPECT,
				Candidate.REDISSON_LEASE, Candidate.REDISSON_WATCHDOG, Candidate.SI_SPIN, Candidate.SI_PUBSUB);
		List<Candidate> singleThroughput = List.of(Candidate.FLOOR, Candidate.QUORUMLOCK, Candidate.REDISSON_LEASE,
				Candidate.REDISSON_WATCHDOG, Candidate.SI_SPIN, Candidate.SI_PUBSUB);
		List<Candidate> quorum = List.of(Candidate.FLOOR, Candidate.QUORUMLOCK, Candidate.REDISSON_REDLOCK);
		List<Candidate> contention = List.of(Candidate.QUORUMLOCK, Candidate.REDISSON_LEASE, Candidate.SI_SPIN,
				Candidate.SI_PUBSUB);
		return List.of(new Group(LATENCY, 1, single), new Group(LATENCY, 3, quorum), new Group(LATENCY, 5, quorum),
				new Group(THROUGHPUT, 1, singleThroughput), new Group(THROUGHPUT, 3, quorum),
				new Group(THROUGHPUT, 5, quorum), new Group(CONTENTION_THREADS, 1, contention),
				new Group(CONTENTION_CLIENTS, 1, contention),
				new Group(ASPECT, 0, List.of(Candidate.QUORUMLOCK, Candidate.QUORUMLOCK_ASPECT)));
	}

	private final BenchSettings settings;

	private final List<String> nodes;

	private final Map<Job, List<Map<String, Double>>> results = new LinkedHashMap<>();

	private final Map<Job, String> failures = new LinkedHashMap<>();

	private final BenchJobs jobs;

	private BenchRunner(BenchSettings settings, List<String> nodes) {
		this.settings = settings;
		this.nodes = nodes;
		this.jobs = new BenchJobs(settings, nodes);
	}

	/**
	 * Run the benchmarks.
	 * @param args see {@code --help}
	 * @throws Exception on failure
	 */
	public static void main(String[] args) throws Exception {
		BenchSettings settings = BenchSettings.parse(args);
		List<String> nodes = BenchNodes.all();
		int failed = new BenchRunner(settings, nodes).runAll();
		// Lingering client threads of in-process (smoke) runs must not keep the JVM.
		System.exit((failed > 0) ? 1 : 0);
	}

	/**
	 * Run everything and write the report.
	 * @return how many benchmarks failed (a candidate that is unavailable, such as the
	 * aspect before its auto-configuration exists, is reported but not counted)
	 */
	private int runAll() throws Exception {
		long started = System.nanoTime();
		OffsetDateTime startedAt = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS);
		Map<String, Object> machine = Machine.describe(this.settings, this.nodes);
		String loadBefore = ScaleReport.loadAverage();
		List<Group> plan = SharedScenarios.with(plan());
		int total = 0;
		for (Group group : plan) {
			if (group.nodes() <= this.nodes.size()) {
				total += (int) group.jobs(0).stream().filter((j) -> this.settings.includes(j.id())).count()
						* this.settings.rounds(group.scenario());
			}
		}
		boolean memoryIncluded = this.settings.includes("memory/1/quorumlock") && this.settings.memoryKeys > 0;
		if (total == 0 && !memoryIncluded) {
			// --only selects other runners' scenarios (ScaleRunner's): no empty report
			System.out.println("BenchRunner: no benchmark matches --only; nothing to do");
			return 0;
		}
		int done = 0;
		for (int round = 0; round < this.settings.maxRounds(); round++) {
			for (Group group : plan) {
				if (group.nodes() > this.nodes.size() || round >= this.settings.rounds(group.scenario())) {
					continue;
				}
				for (Job job : group.jobs(round)) {
					if (!this.settings.includes(job.id())) {
						continue;
					}
					done++;
					if (this.failures.containsKey(job)) {
						System.out.printf("%n=== [%d/%d] round %d: %s skipped (failed before)%n", done, total,
								round + 1, job.id());
						continue;
					}
					System.out.printf("%n=== [%d/%d] round %d: %s (%.0f s elapsed)%n", done, total, round + 1, job.id(),
							(System.nanoTime() - started) / 1e9);
					try {
						Map<String, Double> metrics = this.jobs.run(job);
						this.results.computeIfAbsent(job, (j) -> new ArrayList<>()).add(metrics);
					}
					catch (RunnerException | RuntimeException ex) {
						String why = rootMessage(ex);
						System.out.println("=== " + job.id() + " FAILED: " + why);
						this.failures.put(job, why);
					}
				}
			}
		}
		Map<String, Double> memory = null;
		String memoryFailure = null;
		if (memoryIncluded) {
			System.out.printf("%n=== memory: %,d distinct keys with quorumlock (%.0f s elapsed)%n",
					this.settings.memoryKeys, (System.nanoTime() - started) / 1e9);
			try {
				memory = this.jobs.memoryCheck();
			}
			catch (IOException | RuntimeException ex) {
				memoryFailure = rootMessage(ex);
				System.out.println("=== memory FAILED: " + memoryFailure);
			}
		}
		double seconds = (System.nanoTime() - started) / 1e9;
		machine.put("loadAverageBefore", loadBefore);
		machine.put("loadAverageAfter", ScaleReport.loadAverage());
		Report report = new Report(this.settings, startedAt, seconds, machine, Machine.versions(), plan, this.results,
				this.failures, this.jobs.errors(), memory, memoryFailure);
		String name = (this.settings.name != null) ? this.settings.name : LocalDate.now(ZoneOffset.UTC).toString();
		Files.createDirectories(this.settings.out);
		Path json = this.settings.out.resolve(name + ".json");
		Path markdown = this.settings.out.resolve(name + ".md");
		Files.writeString(json, Json.write(report.json()), StandardCharsets.UTF_8);
		String md = report.markdown();
		Files.writeString(markdown, md, StandardCharsets.UTF_8);
		System.out.println();
		System.out.println(md);
		System.out.printf("Wrote %s and %s in %.0f s%n", json, markdown, seconds);
		int failed = (int) this.failures.values().stream().filter((why) -> !why.contains(UNAVAILABLE)).count();
		if (memoryFailure != null) {
			failed++;
		}
		if (failed > 0) {
			System.out.println(failed + " benchmark(s) failed: see 'Not measured' above");
		}
		return failed;
	}

	static Map<String, String> keyValues(String line) {
		Map<String, String> values = new LinkedHashMap<>();
		for (String pair : line.trim().split("\\s+")) {
			int eq = pair.indexOf('=');
			if (eq > 0) {
				values.put(pair.substring(0, eq), pair.substring(eq + 1));
			}
		}
		return values;
	}

	/**
	 * What went wrong, innermost first: JMH wraps a benchmark's exception as a suppressed
	 * exception of its {@code BenchmarkException}.
	 */
	private static String rootMessage(Throwable error) {
		Throwable t = error;
		while (true) {
			if (t.getSuppressed().length > 0) {
				t = t.getSuppressed()[0];
			}
			else if (t.getCause() != null && t.getCause() != t) {
				t = t.getCause();
			}
			else {
				break;
			}
			if (t.getCause() == null && t.getSuppressed().length == 0) {
				break;
			}
			if (t.getMessage() != null && !t.getMessage().startsWith("Benchmark")) {
				break;
			}
		}
		return (t.getClass().getSimpleName() + ": " + t.getMessage()).replaceAll("\\s+", " ");
	}

}
