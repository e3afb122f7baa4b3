package io.quorumlock.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
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

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
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

	/** Command-line settings. */
	static final class Settings {

		boolean smoke;

		/** Rounds for every scenario; 0: 3 for latency, 2 for the others. */
		int rounds;

		int forks = 1;

		int warmupIterations = 1;

		/**
		 * Warm-up for every scenario; null: 4 s for latency (one thread takes that long
		 * to reach steady state on 2 cores), 10 s for throughput, 2 s for contention.
		 */
		TimeValue warmup;

		TimeValue measurement = TimeValue.seconds(2);

		int memoryKeys = 1_000_000;

		Path out = Path.of("benchmarks", "results");

		Pattern only;

		String name;

		/** Extra options for every forked JVM, for example a profiler agent. */
		final List<String> jvmArgs = new ArrayList<>();

		static Settings parse(String[] args) {
			Settings s = new Settings();
			for (int i = 0; i < args.length; i++) {
				String arg = args[i];
				switch (arg) {
					case "--smoke" -> {
						s.smoke = true;
						s.rounds = 1;
						s.forks = 0;
						s.warmupIterations = 0;
						s.warmup = TimeValue.seconds(1);
						s.measurement = TimeValue.milliseconds(500);
						s.memoryKeys = 20_000;
					}
					case "--rounds" -> s.rounds = Integer.parseInt(args[++i]);
					case "--forks" -> s.forks = Integer.parseInt(args[++i]);
					case "--warmup-iterations" -> s.warmupIterations = Integer.parseInt(args[++i]);
					case "--warmup" -> s.warmup = TimeValue.fromString(args[++i]);
					case "--measurement" -> s.measurement = TimeValue.fromString(args[++i]);
					case "--memory-keys" -> s.memoryKeys = Integer.parseInt(args[++i]);
					case "--out" -> s.out = Path.of(args[++i]);
					case "--only" -> s.only = Pattern.compile(args[++i]);
					case "--name" -> s.name = args[++i];
					case "--jvm-arg" -> s.jvmArgs.add(args[++i]);
					case "--help", "-h" -> {
						System.out.println("""
								BenchRunner [--smoke] [--rounds N] [--forks N] [--warmup-iterations N]
								            [--warmup 4s] [--measurement 2s] [--memory-keys N]
								            [--out DIR] [--only REGEX] [--name NAME] [--jvm-arg ARG]...
								  --only matches job ids such as latency/1/quorumlock, throughput/3/floor,
								         contention-threads/1/si-pubsub, memory/1/quorumlock
								  --jvm-arg adds an option to each forked JVM (a profiler agent, say)
								  Needs -Dbench.nodes (or BENCH_NODES): five redis:// URIs (run.sh sets it).""");
						System.exit(0);
					}
					default -> throw new IllegalArgumentException("unknown argument '" + arg + "' (try --help)");
				}
			}
			return s;
		}

		int rounds(String scenario) {
			if (this.rounds > 0) {
				return this.rounds;
			}
			return SharedScenarios.like(scenario).equals(LATENCY) ? 3 : 2;
		}

		int maxRounds() {
			return Math.max(rounds(LATENCY), rounds(THROUGHPUT));
		}

		TimeValue warmup(String scenario) {
			if (this.warmup != null) {
				return this.warmup;
			}
			return switch (SharedScenarios.like(scenario)) {
				case LATENCY -> TimeValue.seconds(4);
				// 16 threads on 2 cores: C2 is still compiling the larger code paths
				// (quorumlock's,
				// Redisson's) for several seconds; after 3 s quorumlock measured 0.70x
				// the floor on
				// 3 nodes, after 10 s 0.91x, so a shorter warm-up measures the JIT, not
				// the lock.
				case THROUGHPUT -> TimeValue.seconds(10);
				default -> TimeValue.seconds(2);
			};
		}

		boolean includes(String id) {
			return this.only == null || this.only.matcher(id).find();
		}

		Map<String, Object> describe() {
			Map<String, Object> m = new LinkedHashMap<>();
			m.put("mode", this.smoke ? "smoke" : "full");
			Map<String, Object> rounds = new LinkedHashMap<>();
			Map<String, Object> warmups = new LinkedHashMap<>();
			for (String scenario : List.of(LATENCY, THROUGHPUT, CONTENTION_THREADS, CONTENTION_CLIENTS, ASPECT)) {
				rounds.put(scenario, rounds(scenario));
				warmups.put(scenario, warmup(scenario).toString());
			}
			m.put("rounds", rounds);
			m.put("forksPerJob", this.forks);
			m.put("warmupIterations", this.warmupIterations);
			m.put("warmup", warmups);
			m.put("measurementIterations", 1);
			m.put("measurement", this.measurement.toString());
			m.put("memoryKeys", this.memoryKeys);
			if (this.only != null) {
				m.put("only", this.only.pattern());
			}
			return m;
		}

	}

	private final Settings settings;

	private final List<String> nodes;

	private final Map<Job, List<Map<String, Double>>> results = new LinkedHashMap<>();

	private final Map<Job, String> failures = new LinkedHashMap<>();

	/** The first error message of each job that counted errors. */
	private final Map<Job, String> errors = new LinkedHashMap<>();

	private BenchRunner(Settings settings, List<String> nodes) {
		this.settings = settings;
		this.nodes = nodes;
	}

	/**
	 * Run the benchmarks.
	 * @param args see {@code --help}
	 * @throws Exception on failure
	 */
	public static void main(String[] args) throws Exception {
		Settings settings = Settings.parse(args);
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
		Map<String, Object> machine = machine();
		String loadBefore = loadAverage();
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
						Map<String, Double> metrics = run(job);
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
				memory = memoryCheck();
			}
			catch (IOException | RuntimeException ex) {
				memoryFailure = rootMessage(ex);
				System.out.println("=== memory FAILED: " + memoryFailure);
			}
		}
		double seconds = (System.nanoTime() - started) / 1e9;
		machine.put("loadAverageBefore", loadBefore);
		machine.put("loadAverageAfter", loadAverage());
		Report report = new Report(this.settings, startedAt, seconds, machine, versions(), plan, this.results,
				this.failures, this.errors, memory, memoryFailure);
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

	private Map<String, Double> run(Job job) throws RunnerException, IOException {
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
			if (SharedScenarios.like(job.scenario()).equals(LATENCY)) {
				Statistics statistics = primary.getStatistics();
				metrics.put("p50Us", statistics.getPercentile(50));
				metrics.put("p99Us", statistics.getPercentile(99));
				metrics.put("p999Us", statistics.getPercentile(99.9));
				metrics.put("meanUs", statistics.getMean());
				metrics.put("samples", (double) statistics.getN());
			}
			else if (job.scenario().equals(ASPECT)) {
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
			Map<String, String> line = keyValues(last);
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

	private Map<String, Double> memoryCheck() throws IOException {
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
		keyValues(memoryLine.substring("[memory] ".length())).forEach((k, v) -> metrics.put(k, Double.parseDouble(v)));
		return metrics;
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

	private Map<String, Object> machine() {
		Map<String, Object> m = new LinkedHashMap<>();
		m.put("cores", Runtime.getRuntime().availableProcessors());
		m.put("cpu", firstValue(Path.of("/proc/cpuinfo"), "model name"));
		m.put("memory", firstValue(Path.of("/proc/meminfo"), "MemTotal"));
		m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
				+ System.getProperty("os.arch"));
		m.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
		m.put("jvmArgsHost", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
		m.put("jvmArgsForks", (this.settings.forks > 0) ? "-Xms1g -Xmx1g" : "(in-process)");
		m.put("redis", redisVersion(this.nodes.get(0)));
		m.put("redisBinary", System.getenv().getOrDefault("BENCH_REDIS_BINARY", "?"));
		m.put("redisServers", this.nodes.size());
		m.put("commit", System.getenv().getOrDefault("BENCH_COMMIT", "?"));
		return m;
	}

	private static Map<String, Object> versions() {
		Map<String, Object> v = new LinkedHashMap<>();
		v.put("jmh", org.openjdk.jmh.util.Version.getPlainVersion());
		v.put("lettuce", version("io.lettuce", "lettuce-core", RedisClient.class));
		v.put("redisson", version("org.redisson", "redisson", org.redisson.Redisson.class));
		v.put("springIntegration", version("org.springframework.integration", "spring-integration-redis",
				org.springframework.integration.redis.util.RedisLockRegistry.class));
		v.put("springDataRedis", version("org.springframework.data", "spring-data-redis",
				org.springframework.data.redis.connection.RedisConnectionFactory.class));
		v.put("springFramework", org.springframework.core.SpringVersion.getVersion());
		v.put("springBoot", org.springframework.boot.SpringBootVersion.getVersion());
		v.put("netty", version("io.netty", "netty-transport", io.netty.channel.Channel.class));
		return v;
	}

	private static String version(String group, String artifact, Class<?> type) {
		String resource = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
		try (InputStream in = type.getClassLoader().getResourceAsStream(resource)) {
			if (in != null) {
				Properties properties = new Properties();
				properties.load(in);
				String version = properties.getProperty("version");
				if (version != null) {
					return version;
				}
			}
		}
		catch (IOException ex) {
			// fall back to the manifest
		}
		String version = type.getPackage().getImplementationVersion();
		return (version != null) ? version : "?";
	}

	private static String redisVersion(String node) {
		RedisClient client = RedisClient.create(node);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			String info = connection.sync().info("server");
			for (String line : info.split("\r?\n")) {
				if (line.startsWith("redis_version:")) {
					return line.substring("redis_version:".length()).trim();
				}
			}
			return "?";
		}
		catch (RuntimeException ex) {
			return "? (" + ex.getMessage() + ")";
		}
		finally {
			client.shutdown(0, 2, TimeUnit.SECONDS);
		}
	}

	private static String firstValue(Path file, String key) {
		try {
			for (String line : Files.readAllLines(file)) {
				if (line.startsWith(key)) {
					return line.substring(line.indexOf(':') + 1).trim().replaceAll("\\s+", " ");
				}
			}
			return "?";
		}
		catch (IOException | UncheckedIOException ex) {
			return "?";
		}
	}

	private static String loadAverage() {
		try {
			String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
			return String.format(Locale.ROOT, "%s %s %s", parts[0], parts[1], parts[2]);
		}
		catch (IOException | RuntimeException ex) {
			return "?";
		}
	}

}
