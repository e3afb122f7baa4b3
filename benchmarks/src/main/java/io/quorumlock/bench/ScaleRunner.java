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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The scale scenarios (held leases, waiters, a stalled master, a throttled client,
 * contention across processes), each case in its own JVM, after the JMH benchmarks in
 * {@code run.sh}. Writes {@code <date>-scale.json} and {@code <date>-scale.md} through
 * {@link ScaleReport}. Takes run.sh's options {@code --smoke}, {@code --only},
 * {@code --out}, {@code --name} and its own: {@code --held-sizes 1000,10000,100000},
 * {@code --waiters 10000}, {@code --vt-java PATH|none} (a Java 21+ for the waiters;
 * run.sh finds one). The stalled master's PID comes from {@code BENCH_PIDS} (run.sh's
 * servers, in node order).
 */
public final class ScaleRunner {

	/** Marks the failure of a case that cannot run here (not counted as an error). */
	static final String UNAVAILABLE = "is unavailable";

	/** One case: a job id and how to run it. */
	record Case(String id, String scenario, Step step) {

	}

	interface Step {

		List<Map<String, String>> run() throws Exception;

	}

	private final Settings s;

	private final List<Map<String, Object>> results = new ArrayList<>();

	private final Map<String, String> failures = new LinkedHashMap<>();

	private ScaleRunner(Settings settings) {
		this.s = settings;
	}

	/** Command-line settings. */
	static final class Settings {

		boolean smoke;

		Pattern only;

		Path out = Path.of("benchmarks", "results");

		String name;

		String vtJava;

		List<Integer> heldSizes;

		int waiters;

		static Settings parse(String[] args) {
			Settings s = new Settings();
			for (int i = 0; i < args.length; i++) {
				switch (args[i]) {
					case "--smoke" -> s.smoke = true;
					case "--only" -> s.only = Pattern.compile(args[++i]);
					case "--out" -> s.out = Path.of(args[++i]);
					case "--name" -> s.name = args[++i];
					case "--vt-java" -> s.vtJava = args[++i];
					case "--held-sizes" -> s.heldSizes = Arrays.stream(args[++i].split(","))
						.map(String::trim)
						.map(Integer::valueOf)
						.toList();
					case "--waiters" -> s.waiters = Integer.parseInt(args[++i]);
					default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "' (try --help)");
				}
			}
			if (s.heldSizes == null) {
				s.heldSizes = s.smoke ? List.of(1_000) : List.of(1_000, 10_000, 100_000);
			}
			if (s.waiters == 0) {
				s.waiters = s.smoke ? 500 : 10_000;
			}
			return s;
		}

		boolean includes(String id) {
			return this.only == null || this.only.matcher(id).find();
		}

	}

	/**
	 * Run the scale scenarios.
	 * @param args see the class description
	 * @throws Exception on failure
	 */
	public static void main(String[] args) throws Exception {
		System.exit(new ScaleRunner(Settings.parse(args)).runAll());
	}

	private List<Case> plan() {
		String java = ProcessHandle.current().info().command().orElse("java");
		boolean smoke = this.s.smoke;
		List<Case> plan = new ArrayList<>();
		long lease = smoke ? 3_000 : 30_000;
		// three renewal periods measured: at 1,000 leases one period is a single burst of
		// renewals, and the compilers still at work on it weigh on each renewal more than
		// the
		// renewal itself does (the spread between runs was 288 to 657 us a renewal)
		int heldPeriods = smoke ? 1 : 3;
		// smoke: one case per scenario, quorumlock only, so that --smoke stays short
		for (int nodes : smoke ? new int[] { 3 } : new int[] { 1, 3 }) {
			for (String candidate : (nodes == 1) ? List.of("quorumlock", "redisson-watchdog") : List.of("quorumlock")) {
				for (int size : this.s.heldSizes) {
					plan.add(new Case("scale-held/" + nodes + "/" + candidate + "/" + size, "held", () -> child(java,
							"1g", HeldLeases.class, 600, candidate, size, nodes, lease, heldPeriods)));
				}
			}
		}
		for (int keys : smoke ? new int[] { 1 } : new int[] { 1, 100 }) {
			for (String candidate : smoke ? List.of("quorumlock")
					: List.of("quorumlock", "redisson-lease", "si-pubsub")) {
				plan.add(new Case("scale-waiters/" + keys + "/" + candidate, "waiters", () -> {
					if (this.s.vtJava == null || this.s.vtJava.equals("none")) {
						throw new IllegalStateException("skipped: Java 21+ (virtual threads) " + UNAVAILABLE
								+ " (run.sh looks at BENCH_VT_JAVA_HOME, JAVA_HOME and /usr/lib/jvm)");
					}
					return child(this.s.vtJava, "2g", Waiters.class, 600, candidate, this.s.waiters, keys,
							smoke ? 2 : 3, smoke ? 3_000 : 30_000);
				}));
			}
		}
		plan.add(new Case("scale-stalled/3", "stalled", () -> {
			String[] pids = System.getenv().getOrDefault("BENCH_PIDS", "").split(",");
			if (pids.length < 3) {
				throw new IllegalStateException("BENCH_PIDS must name the masters' PIDs (run.sh sets it)");
			}
			return child(java, "1g", StalledMaster.class, 600, smoke ? 200 : 5_000, smoke ? 200 : 4_000, 16,
					smoke ? "quorumlock" : "quorumlock,floor,redisson-redlock", pids[2].trim());
		}));
		// a throttled client: quorumlock with its defaults on one master and on three,
		// the
		// peers on one (their single-server locks); free keys, so every refusal is a
		// failure
		plan.add(new Case("scale-throttled/1", "throttled",
				() -> child(java, "1g", ThrottledClient.class, 600,
						smoke ? "quorumlock" : "quorumlock,redisson-watchdog,si-pubsub", 1, 8, smoke ? 300 : 5_000,
						smoke ? 1_000 : 20_000, 20)));
		if (!smoke) {
			plan.add(new Case("scale-throttled/3", "throttled",
					() -> child(java, "1g", ThrottledClient.class, 600, "quorumlock", 3, 8, 5_000, 20_000, 20)));
		}
		for (String candidate : smoke ? List.of("quorumlock")
				: List.of("floor", "quorumlock", "redisson-lease", "si-spin", "si-pubsub")) {
			plan.add(new Case("scale-processes/1/" + candidate, "processes", () -> List.of(strings(
					ProcessContention.measure(java, candidate, 4, smoke ? 300 : 20_000, smoke ? 700 : 10_000)))));
		}
		return plan;
	}

	private int runAll() throws IOException {
		List<Case> plan = plan().stream().filter((c) -> this.s.includes(c.id())).toList();
		if (plan.isEmpty()) {
			System.out.println("scale: no scale scenario matches --only; nothing to do");
			return 0;
		}
		long started = System.nanoTime();
		OffsetDateTime startedAt = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS);
		String loadBefore = ScaleReport.loadAverage();
		int done = 0;
		for (Case c : plan) {
			System.out.printf("%n=== [%d/%d] %s (%.0f s elapsed)%n", ++done, plan.size(), c.id(),
					(System.nanoTime() - started) / 1e9);
			try {
				for (Map<String, String> line : c.step().run()) {
					Map<String, Object> entry = new LinkedHashMap<>();
					entry.put("id", c.id());
					entry.put("scenario", c.scenario());
					line.forEach((k, v) -> entry.put(k, number(v)));
					this.results.add(entry);
					System.out.println("=== " + entry);
				}
			}
			catch (Exception ex) {
				String why = ex.getClass().getSimpleName() + ": " + ex.getMessage();
				System.out.println("=== " + c.id() + " " + (why.contains(UNAVAILABLE) ? "" : "FAILED: ") + why);
				this.failures.put(c.id(), why);
			}
		}
		double seconds = (System.nanoTime() - started) / 1e9;
		ScaleReport report = new ScaleReport(this.s.smoke, startedAt, seconds, loadBefore, ScaleReport.loadAverage(),
				this.s.vtJava, this.results, this.failures);
		String name = ((this.s.name != null) ? this.s.name : LocalDate.now(ZoneOffset.UTC).toString()) + "-scale";
		Files.createDirectories(this.s.out);
		Path json = this.s.out.resolve(name + ".json");
		Path markdown = this.s.out.resolve(name + ".md");
		Files.writeString(json, Json.write(report.json()), StandardCharsets.UTF_8);
		String md = report.markdown();
		Files.writeString(markdown, md, StandardCharsets.UTF_8);
		System.out.println();
		System.out.println(md);
		System.out.printf("Wrote %s and %s in %.0f s%n", json, markdown, seconds);
		return (int) this.failures.values().stream().filter((why) -> !why.contains(UNAVAILABLE)).count();
	}

	/** Run {@code main} in a fresh JVM and return its {@code [scale]} lines. */
	private static List<Map<String, String>> child(String java, String heap, Class<?> main, long timeoutSeconds,
			Object... args) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of(java, "-Xms" + heap, "-Xmx" + heap));
		command.addAll(ProcessContention.extraOptions(main.getSimpleName()));
		command.addAll(List.of("-D" + BenchNodes.PROPERTY + "=" + String.join(",", BenchNodes.all()), "-cp",
				System.getProperty("java.class.path"), main.getName()));
		for (Object arg : args) {
			command.add(String.valueOf(arg));
		}
		Path log = Files.createTempFile("quorumlock-scale-", ".log");
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(log.toFile())
				.start();
			boolean exited = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
			if (!exited) {
				process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
			List<String> lines = Files.readAllLines(log);
			List<Map<String, String>> found = new ArrayList<>();
			String error = null;
			for (String line : lines) {
				if (line.startsWith(ScaleSupport.PREFIX)) {
					found.add(ScaleSupport.keyValues(line.substring(ScaleSupport.PREFIX.length())));
				}
				else if (!line.startsWith("\tat ") && !line.startsWith("\t... ")) {
					System.out.println("  | " + line);
					if (error == null && (line.contains("Exception") || line.contains("Error:"))) {
						error = line.trim();
					}
				}
			}
			if (!exited || process.exitValue() != 0 || found.isEmpty()) {
				throw new IllegalStateException(main.getSimpleName()
						+ (exited ? " exited " + process.exitValue() : " timed out after " + timeoutSeconds + " s")
						+ ((error != null) ? ": " + error : ""));
			}
			return found;
		}
		finally {
			Files.deleteIfExists(log);
		}
	}

	private static Map<String, String> strings(Map<String, Object> values) {
		Map<String, String> out = new LinkedHashMap<>();
		values.forEach((k, v) -> out.put(k, String.valueOf(v)));
		return out;
	}

	private static Object number(String value) {
		try {
			return Double.valueOf(value);
		}
		catch (NumberFormatException ex) {
			return value;
		}
	}

}
