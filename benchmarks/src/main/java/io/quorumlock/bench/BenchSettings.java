package io.quorumlock.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@link BenchRunner}'s command-line settings.
 */
final class BenchSettings {

	boolean smoke;

	/** Rounds for every scenario; 0: 3 for latency, 2 for the others. */
	int rounds;

	int forks = 1;

	int warmupIterations = 1;

	/**
	 * Warm-up for every scenario; null: 4 s for latency (one thread takes that long to
	 * reach steady state on 2 cores), 10 s for throughput, 2 s for contention.
	 */
	TimeValue warmup;

	TimeValue measurement = TimeValue.seconds(2);

	int memoryKeys = 1_000_000;

	Path out = Path.of("benchmarks", "results");

	Pattern only;

	String name;

	/** Extra options for every forked JVM, for example a profiler agent. */
	final List<String> jvmArgs = new ArrayList<>();

	static BenchSettings parse(String[] args) {
		BenchSettings s = new BenchSettings();
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
		return SharedScenarios.like(scenario).equals(BenchRunner.LATENCY) ? 3 : 2;
	}

	int maxRounds() {
		return Math.max(rounds(BenchRunner.LATENCY), rounds(BenchRunner.THROUGHPUT));
	}

	TimeValue warmup(String scenario) {
		if (this.warmup != null) {
			return this.warmup;
		}
		return switch (SharedScenarios.like(scenario)) {
			case BenchRunner.LATENCY -> TimeValue.seconds(4);
			// 16 threads on 2 cores: C2 is still compiling the larger code paths
			// (quorumlock's,
			// Redisson's) for several seconds; after 3 s quorumlock measured 0.70x
			// the floor on
			// 3 nodes, after 10 s 0.91x, so a shorter warm-up measures the JIT, not
			// the lock.
			case BenchRunner.THROUGHPUT -> TimeValue.seconds(10);
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
		for (String scenario : List.of(BenchRunner.LATENCY, BenchRunner.THROUGHPUT, BenchRunner.CONTENTION_THREADS,
				BenchRunner.CONTENTION_CLIENTS, BenchRunner.ASPECT)) {
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
