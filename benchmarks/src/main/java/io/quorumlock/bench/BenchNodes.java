package io.quorumlock.bench;

import java.util.Arrays;
import java.util.List;

/**
 * The Redis servers of a run, from the system property {@value #PROPERTY} (or the
 * environment variable {@value #ENV}): comma-separated {@code redis://host:port} URIs,
 * started by {@code run.sh}. A benchmark on N nodes uses the first N.
 */
public final class BenchNodes {

	/** System property with the node URIs. */
	public static final String PROPERTY = "bench.nodes";

	/** Environment variable with the node URIs, if the property is not set. */
	public static final String ENV = "BENCH_NODES";

	private static final String RUN = Long.toString(System.currentTimeMillis(), 36);

	private BenchNodes() {
	}

	/**
	 * Every node of this run.
	 * @return the node URIs
	 */
	public static List<String> all() {
		String value = System.getProperty(PROPERTY);
		if (value == null || value.isBlank()) {
			value = System.getenv(ENV);
		}
		if (value == null || value.isBlank()) {
			throw new IllegalStateException("no Redis servers: set -D" + PROPERTY + " or " + ENV
					+ " to comma-separated redis://host:port URIs (benchmarks/run.sh does)");
		}
		return Arrays.stream(value.split(",")).map(String::trim).filter((s) -> !s.isEmpty()).toList();
	}

	/**
	 * The first {@code n} nodes.
	 * @param n how many
	 * @return the node URIs
	 */
	public static List<String> first(int n) {
		List<String> all = all();
		if (all.size() < n) {
			throw new IllegalStateException(PROPERTY + " names " + all.size() + " node(s), the benchmark needs " + n);
		}
		return all.subList(0, n);
	}

	/**
	 * A key unique to this fork and candidate, so that no run meets another's leftovers.
	 * @param scenario the scenario
	 * @param candidate the candidate
	 * @return the key
	 */
	public static String key(String scenario, String candidate) {
		return "bench:" + scenario + ":" + candidate + ":" + RUN;
	}

}
