package io.quorumlock.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;
import org.openjdk.jmh.runner.IterationType;

/**
 * Secondary results of every iteration: CPU time per operation on both sides of the wire
 * ({@code cpu.jvm}: this JVM's process CPU time; {@code cpu.redis}:
 * {@code used_cpu_user + used_cpu_sys} from {@code INFO cpu}, summed over the benchmark's
 * nodes), the operations that failed ({@code errors}, see {@link Errors}), and the
 * figures a benchmark {@linkplain #report reports} for the iteration (the contention
 * benchmark's waits and fairness, the memory benchmark's heap). On a 2-core machine where
 * client and servers share the cores, the CPU figures explain most throughput gaps. Use
 * with {@code -prof io.quorumlock.bench.BenchProfiler}; run.sh always adds it.
 */
public class BenchProfiler implements InternalProfiler {

	private static final Map<String, ScalarResult> reported = new ConcurrentHashMap<>();

	private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

	private RedisClient client;

	private long jvmStart;

	private double redisStart;

	/**
	 * Report a figure of the current iteration, averaged over iterations and forks.
	 * @param name the secondary result's name
	 * @param value its value
	 * @param unit its unit
	 */
	static void report(String name, double value, String unit) {
		report(name, value, unit, AggregationPolicy.AVG);
	}

	/**
	 * Report a figure of the current iteration.
	 * @param name the secondary result's name
	 * @param value its value
	 * @param unit its unit
	 * @param policy how iterations and forks combine
	 */
	static void report(String name, double value, String unit, AggregationPolicy policy) {
		reported.put(name, new ScalarResult(name, value, unit, policy));
	}

	@Override
	public String getDescription() {
		return "JVM and Redis CPU time per operation, errors, and the figures the benchmarks report";
	}

	@Override
	public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
		if (this.client == null) {
			String nodes = benchmarkParams.getParam("nodes");
			int n = (nodes != null) ? Integer.parseInt(nodes) : 0;
			this.client = RedisClient.create();
			for (String node : BenchNodes.first(n)) {
				this.connections.add(this.client.connect(RedisURI.create(node)));
			}
		}
		reported.clear();
		Errors.reset();
		this.redisStart = redisCpuSeconds();
		this.jvmStart = jvmCpuNanos();
	}

	@Override
	public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
			IterationResult result) {
		long jvm = jvmCpuNanos() - this.jvmStart;
		double redis = redisCpuSeconds() - this.redisStart;
		long ops = result.getMetadata().getMeasuredOps();
		List<Result> results = new ArrayList<>(reported.values());
		results.add(new ScalarResult("errors", Errors.count(), "#", AggregationPolicy.SUM));
		if (ops > 0) {
			results.add(new ScalarResult("cpu.jvm", jvm / 1000.0 / ops, "us/op", AggregationPolicy.AVG));
			if (!this.connections.isEmpty()) {
				results.add(new ScalarResult("cpu.redis", redis * 1e6 / ops, "us/op", AggregationPolicy.AVG));
			}
		}
		if (iterationParams.getType() == IterationType.MEASUREMENT) {
			this.connections.forEach(StatefulRedisConnection::close);
			this.connections.clear();
			this.client.shutdown(0, 1, TimeUnit.SECONDS);
			this.client = null;
		}
		return results;
	}

	private static long jvmCpuNanos() {
		OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
		if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
			return sun.getProcessCpuTime();
		}
		return 0;
	}

	private double redisCpuSeconds() {
		double total = 0;
		for (StatefulRedisConnection<String, String> connection : this.connections) {
			for (String line : connection.sync().info("cpu").split("\r?\n")) {
				if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
					total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
				}
			}
		}
		return total;
	}

}
