package io.quorumlock.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import java.io.IOException;

/**
 * The scale scenarios' report: the JSON (every figure of every case) and the markdown
 * (one table per scenario, the targets, the load the machine was under).
 */
final class ScaleReport {

	/**
	 * A cross-process case whose busiest outside task took this share of the CPUs in its
	 * window is flagged under the table.
	 */
	private static final double BUSY_OTHER_SHARE = 0.01;

	private final boolean smoke;

	private final OffsetDateTime startedAt;

	private final double seconds;

	private final Map<String, Object> machine = new LinkedHashMap<>();

	private final List<Map<String, Object>> results;

	private final Map<String, String> failures;

	private final ScaleTargets targets;

	ScaleReport(boolean smoke, OffsetDateTime startedAt, double seconds, String loadBefore, String loadAfter,
			String vtJava, List<Map<String, Object>> results, Map<String, String> failures) {
		this.smoke = smoke;
		this.startedAt = startedAt;
		this.seconds = seconds;
		this.results = results;
		this.failures = failures;
		this.machine.put("cores", Runtime.getRuntime().availableProcessors());
		this.machine.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
		this.machine.put("jdkWaiters", (vtJava != null) ? vtJava : "none");
		this.machine.put("redisBinary", System.getenv().getOrDefault("BENCH_REDIS_BINARY", "?"));
		this.machine.put("commit", System.getenv().getOrDefault("BENCH_COMMIT", "?"));
		this.machine.put("loadAverageBefore", loadBefore);
		this.machine.put("loadAverageAfter", loadAfter);
		this.targets = new ScaleTargets(this);
	}

	List<Map<String, Object>> find(String scenario, Predicate<Map<String, Object>> filter) {
		return this.results.stream().filter((r) -> scenario.equals(r.get("scenario"))).filter(filter).toList();
	}

	static double num(Map<String, Object> row, String key) {
		Object v = (row != null) ? row.get(key) : null;
		return (v instanceof Double d) ? d : Double.NaN;
	}

	static Predicate<Map<String, Object>> is(String key, Object value) {
		return (r) -> {
			Object v = r.get(key);
			return (v instanceof Double d && value instanceof Number n) ? d == n.doubleValue()
					: String.valueOf(value).equals(String.valueOf(v));
		};
	}

	/** Whether the machine was busier than its cores when the run began. */
	boolean loaded() {
		int cores = (int) this.machine.get("cores");
		// Only the load before the run: the one after includes the run's own client JVMs
		// and servers (the stalled-master and cross-process scenarios keep 5 busy).
		String load = String.valueOf(this.machine.get("loadAverageBefore"));
		try {
			return Double.parseDouble(load.split(" ")[0]) > cores;
		}
		catch (NumberFormatException ex) {
			return false; // unknown load: say nothing
		}
	}

	Map<String, Object> json() {
		Map<String, Object> root = new LinkedHashMap<>();
		root.put("startedAt", this.startedAt.toString());
		root.put("durationSeconds", Math.round(this.seconds));
		root.put("mode", this.smoke ? "smoke" : "full");
		root.put("loadedMachine", loaded());
		root.put("machine", this.machine);
		root.put("results", this.results);
		root.put("failures", this.failures);
		root.put("targets", this.targets.list());
		return root;
	}

	String markdown() {
		StringBuilder md = new StringBuilder();
		md.append("## quorumlock at scale, ").append(this.startedAt.toLocalDate()).append("\n\n");
		Map<String, Object> m = this.machine;
		md.append(String.format(Locale.ROOT,
				"%s run, %.0f s in all, each case in a fresh JVM. Machine: %s cores, %s; waiters on %s. %s. "
						+ "Commit %s. **Load average before/after: %s / %s.**%n%n",
				this.smoke ? "Smoke" : "Scale", this.seconds, m.get("cores"), m.get("jdk"), m.get("jdkWaiters"),
				m.get("redisBinary"), m.get("commit"), m.get("loadAverageBefore"), m.get("loadAverageAfter")));
		if (loaded()) {
			md.append("> **Measured on a loaded machine** (load average above the core count): other builds shared "
					+ "the cores, so latencies and rates are pessimistic and noisy; CPU per operation (process CPU "
					+ "time) is the least affected. These figures need a rerun on a quiet machine before they are "
					+ "quoted.\n\n");
		}
		md.append("### 1. Held leases (lease ")
			.append(this.smoke ? "3 s" : "30 s")
			.append(", renewal every lease/3; the window is ")
			.append(this.smoke ? "the second renewal period" : "three renewal periods")
			.append(this.smoke ? " after all are held, the first left out as warm-up)\n\n"
					: " after all are held and a warm-up: as many periods as 100,000 renewals take, one to 12, and "
							+ "more while the JVM's JIT compilers took 50 ms or more of the last one, 12 in all at most)\n\n");
		md.append("A renewal: one counted by quorumlock's `LockListener.onRenewed`; for Redisson (no such "
				+ "callback) one `PEXPIRE` per master. PEXPIRE/renewal above 1 = retries, or renewing more often than "
				+ "lease/3. Per held lease per period = CPU in the window ÷ leases held ÷ renewal periods (the fair "
				+ "comparison when clients renew at different rates). Commands at Redis include those scripts call. "
				+ "Late = a key's TTL below half the lease at the end; lapsed = a key gone. Exclusion: a second client "
				+ "asks for 100 held keys. Less the JIT: the JVM's CPU less its JIT compiler threads' (read from "
				+ "/proc), what renewal costs once compiled; with few leases the compilers are still at work after "
				+ "the warm-up, and their share of the window varies from run to run.\n\n");
		md.append("| masters | candidate | leases | heap/lease (B) | JVM CPU/renewal (µs) | less the JIT (µs) "
				+ "| Redis CPU/renewal (µs) "
				+ "| JVM CPU per lease per period (µs) | Redis CPU per lease per period (µs) | Redis commands/s "
				+ "| script calls/renewal | PEXPIRE per master/renewal | renewals | lost | lapsed | late "
				+ "| least TTL (s) | violations | warm-up (periods) | JIT in window (ms) |\n"
				+ "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (Map<String, Object> r : find("held", (x) -> true)) {
			md.append(row(r.get("nodes"), r.get("candidate"), r.get("leases"), f(r, "heapPerLeaseBytes", 0),
					f(r, "jvmCpuUsPerRenewal", 1), f(r, "jvmCpuUsPerRenewalLessJit", 1),
					f(r, "redisCpuUsPerRenewal", 1), f(r, "jvmCpuUsPerLeasePerPeriod", 1),
					f(r, "redisCpuUsPerLeasePerPeriod", 1), f(r, "redisCommandsPerSecond", 0),
					f(r, "scriptCallsPerRenewal", 3), f(r, "pexpiresPerNodePerRenewal", 2), f(r, "renewals", 0),
					(num(r, "lost") < 0) ? "n/a" : f(r, "lost", 0), f(r, "lapsed", 0), f(r, "late", 0),
					fmt(num(r, "minPttlMs") / 1000, 1), f(r, "violations", 0), f(r, "warmupPeriods", 0),
					f(r, "jitMsInWindow", 0)));
		}
		md.append("\n### 2. Waiters: virtual threads on 1 and on 100 keys, one master\n\n");
		md.append("Heap per waiter: retained heap with all blocked behind gates (their own stacks included). "
				+ "Hand-over latency: the holder leaving its critical section (before its unlock) to the next "
				+ "one entering. Fairness: Jain's index of the turns each waiter got (1 = equal).\n\n");
		md.append("| keys | candidate | waiters | heap/waiter (B) | Redis commands/s while waiting | hand-overs/s "
				+ "| commands/hand-over | script calls/hand-over | hand-over p50 (ms) | p99 (ms) | fairness | no turn "
				+ "| errors | violations |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (Map<String, Object> r : find("waiters", (x) -> true)) {
			md.append(row(r.get("keys"), r.get("candidate"), r.get("waiters"), f(r, "heapPerWaiterBytes", 0),
					f(r, "commandsPerSecondWhileWaiting", 1), f(r, "handoversPerSecond", 0),
					f(r, "commandsPerHandover", 1), f(r, "scriptCallsPerHandover", 2),
					fmt(num(r, "handoverP50Us") / 1000, 2), fmt(num(r, "handoverP99Us") / 1000, 2),
					f(r, "fairnessJain", 2), f(r, "starved", 0), f(r, "errors", 0), f(r, "violations", 0)));
		}
		md.append("\n### 3. One of 3 masters stopped (SIGSTOP), against the same run's healthy figures\n\n");
		md.append("Uncontended: one thread, lock + unlock of one key. Throughput: 16 threads on distinct keys. "
				+ "Probe: 4 threads waiting for one key, a counter only the holder may touch. Stuck: calls still "
				+ "blocked 10 s after the phase ended.\n\n");
		md.append("| candidate | state | p50 (µs) | p99 (µs) | ops/s | p50 ÷ healthy | p99 − healthy (ms) "
				+ "| ops/s ÷ healthy | stuck | probe hand-overs | violations |\n"
				+ "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (Map<String, Object> r : find("stalled", (x) -> true)) {
			Map<String, Object> h = healthy(r.get("candidate"));
			boolean stalled = "stalled".equals(r.get("state"));
			md.append(row(r.get("candidate"), r.get("state"), f(r, "p50Us", 0), f(r, "p99Us", 0),
					f(r, "opsPerSecond", 0), stalled ? times(num(r, "p50Us") / num(h, "p50Us")) : "1",
					stalled ? fmt((num(r, "p99Us") - num(h, "p99Us")) / 1000, 2) : "—",
					stalled ? times(num(r, "opsPerSecond") / num(h, "opsPerSecond")) : "1",
					fmt(num(r, "stuck") + num(r, "stuckThreads"), 0), f(r, "probeHandovers", 0),
					f(r, "violations", 0)));
		}
		md.append("\n### 3b. A throttled client: the client process stopped (SIGSTOP) 50–150 ms at a time, "
				+ "continued 100–300 ms\n\n");
		md.append("What a pod held to its CPU limit or a GC pause does to a lock client. 8 threads each lock a key "
				+ "nobody else uses, without waiting, hold it 20 ms and unlock it, each candidate with its defaults "
				+ "(lease 30 s, renewed). Failed: a call refused although its key was free. Lost: a release that "
				+ "reported the lease lost (false: nobody else wanted the key). Latency: call to entry of the "
				+ "successful calls, stops included. Stalls seen: the gaps over 40 ms a 5 ms ticker in the client "
				+ "lived through.\n\n");
		md.append("| masters | candidate | calls | failed | lost | other errors | p50 (ms) | p99 (ms) | stalls seen "
				+ "| stopped (ms) | errors by type |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
		for (Map<String, Object> r : find("throttled", (x) -> true)) {
			md.append(row(r.get("nodes"), r.get("candidate"), f(r, "calls", 0), f(r, "failed", 0), f(r, "lost", 0),
					f(r, "otherErrors", 0), fmt(num(r, "p50Us") / 1000, 2), fmt(num(r, "p99Us") / 1000, 2),
					f(r, "stallsSeen", 0), f(r, "stalledMs", 0), r.get("errorTypes")));
		}
		md.append("\n### 4. Contention across processes: 4 client JVMs on one key, one master\n\n");
		md.append("The floor waits by retrying `SET NX` at once (no back-off): the most hand-overs a polling lock "
				+ "gets. Fairness: the slowest client's operations ÷ the busiest's. Exclusion: a counter in a "
				+ "memory-mapped file shared by the 4 processes. Warm-up: at least 20 s, then until the "
				+ "clients' JIT compilers are quiet (under 250 ms of compilation, all clients together, in 5 s; "
				+ "at most 120 s); JIT in window: their compilation time during the measurement. Others' CPU: "
				+ "what the machine's CPUs spent outside the case during the measurement (all but its clients, "
				+ "the Redis servers and the runner), with the task that took most of it; a task that holds a "
				+ "CPU for milliseconds at a time shows in every candidate's wait tail.\n\n");
		md.append("| candidate | ops/s | ÷ floor | wait p50 (ms) | p99 | p99.9 | max | fairness | ops per client "
				+ "| timeouts | violations | warm-up (s) | JIT in window (ms) | others' CPU in window (ms) |\n"
				+ "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|\n");
		Map<String, Object> floor = first(find("processes", is("candidate", "floor")));
		for (Map<String, Object> r : find("processes", (x) -> true)) {
			md.append(row(r.get("candidate"), f(r, "opsPerSecond", 0),
					times(num(r, "opsPerSecond") / num(floor, "opsPerSecond")), fmt(num(r, "waitP50Us") / 1000, 2),
					fmt(num(r, "waitP99Us") / 1000, 2), fmt(num(r, "waitP999Us") / 1000, 2),
					fmt(num(r, "waitMaxUs") / 1000, 1), f(r, "fairness", 2), r.get("opsPerClient"), f(r, "timeouts", 0),
					f(r, "violations", 0), fmt(num(r, "warmupMs") / 1000, 0), f(r, "jitMsInWindow", 0), others(r)));
		}
		List<String> disturbed = new ArrayList<>();
		for (Map<String, Object> r : find("processes", (x) -> true)) {
			if (num(r, "busiestOtherMs") >= BUSY_OTHER_SHARE * num(r, "windowMs") * cores()) {
				disturbed
					.add(r.get("candidate") + " (" + r.get("busiestOther") + " " + f(r, "busiestOtherMs", 0) + " ms)");
			}
		}
		if (!disturbed.isEmpty()) {
			md.append("\n> **One task outside the case took 1 % of the CPUs or more** in the window of ")
				.append(String.join(", ", disturbed))
				.append(": a task that holds a CPU for milliseconds at a time lengthens every candidate's wait "
						+ "tail, so compare the tails within this run only.\n");
		}
		md.append("\n### Targets\n\n| target | measured | status |\n|---|---|---|\n");
		for (Map<String, Object> t : this.targets.list()) {
			md.append(row(t.get("target"), t.get("measured"), t.get("status")));
		}
		if (!this.failures.isEmpty()) {
			md.append("\n### Not measured\n\n");
			this.failures.forEach((id, why) -> md.append("- `").append(id).append("`: ").append(why).append('\n'));
		}
		return md.toString();
	}

	Map<String, Object> healthy(Object candidate) {
		return first(find("stalled", is("candidate", candidate).and(is("state", "healthy"))));
	}

	static Map<String, Object> first(List<Map<String, Object>> rows) {
		return rows.isEmpty() ? null : rows.get(0);
	}

	private static String row(Object... cells) {
		StringBuilder sb = new StringBuilder("|");
		for (Object cell : cells) {
			String text = (cell instanceof Double d) ? fmt(d, 0) : String.valueOf(cell);
			sb.append(' ').append(text).append(" |");
		}
		return sb.append('\n').toString();
	}

	private static String f(Map<String, Object> row, String key, int decimals) {
		return fmt(num(row, key), decimals);
	}

	private int cores() {
		return (int) this.machine.get("cores");
	}

	/**
	 * A cross-process case's others' CPU in its window, with the task that took most of
	 * it ({@code 290 (kdamond.0 230)}); a dash where it was not measured.
	 */
	private static String others(Map<String, Object> row) {
		if (Double.isNaN(num(row, "otherCpuMs"))) {
			return "—";
		}
		return f(row, "otherCpuMs", 0) + (Double.isNaN(num(row, "busiestOtherMs")) ? ""
				: " (" + row.get("busiestOther") + " " + f(row, "busiestOtherMs", 0) + ")");
	}

	static String times(double ratio) {
		return Double.isNaN(ratio) ? "—" : fmt(ratio, 2) + "×";
	}

	static String fmt(double value, int decimals) {
		if (Double.isNaN(value) || Double.isInfinite(value)) {
			return "—";
		}
		return String.format(Locale.ROOT, "%,." + decimals + "f", value);
	}

	static String loadAverage() {
		try {
			String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
			return String.format(Locale.ROOT, "%s %s %s", parts[0], parts[1], parts[2]);
		}
		catch (IOException | RuntimeException ex) {
			return "?";
		}
	}

}
