package io.quorumlock.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.RedisURI;
import java.lang.management.OperatingSystemMXBean;

/**
 * CPU time per operation on both sides of the wire: this JVM's process CPU time, and the
 * Redis servers' ({@code used_cpu_user + used_cpu_sys} from {@code INFO cpu}, summed over
 * the benchmark's nodes), each divided by the operations of the iteration. On a 2-core
 * machine where client and servers share the cores, these explain most throughput gaps.
 * Use with {@code -prof io.quorumlock.bench.CpuProfiler}; BenchRunner always adds it.
 */
public class CpuProfiler implements InternalProfiler {

	private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

	private RedisClient client;

	private long jvmStart;

	private double redisStart;

	@Override
	public String getDescription() {
		return "JVM and Redis CPU time per operation";
	}

	@Override
	public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
		if (this.client == null) {
			String nodes = benchmarkParams.getParam("nodes");
			int n = (nodes != null) ? Integer.parseInt(nodes) : 1;
			this.client = RedisClient.create();
			for (String node : BenchNodes.first(n)) {
				this.connections.add(this.client.connect(RedisURI.create(node)));
			}
		}
		this.redisStart = redisCpuSeconds();
		this.jvmStart = jvmCpuNanos();
	}

	@Override
	public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
			IterationResult result) {
		long jvm = jvmCpuNanos() - this.jvmStart;
		double redis = redisCpuSeconds() - this.redisStart;
		long ops = result.getMetadata().getMeasuredOps();
		List<Result> results = new ArrayList<>();
		if (ops > 0) {
			results.add(new ScalarResult("cpu.jvm", jvm / 1000.0 / ops, "us/op", AggregationPolicy.AVG));
			results.add(new ScalarResult("cpu.redis", redis * 1e6 / ops, "us/op", AggregationPolicy.AVG));
		}
		if (iterationParams.getType() == org.openjdk.jmh.runner.IterationType.MEASUREMENT) {
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
