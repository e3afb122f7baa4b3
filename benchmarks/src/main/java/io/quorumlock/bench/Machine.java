package io.quorumlock.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * What a benchmark report says of where it ran: the machine, the JDK, the Redis servers
 * and the versions of the libraries compared.
 */
final class Machine {

	private Machine() {
	}

	static Map<String, Object> describe(BenchSettings settings, List<String> nodes) {
		Map<String, Object> m = new LinkedHashMap<>();
		m.put("cores", Runtime.getRuntime().availableProcessors());
		m.put("cpu", firstValue(Path.of("/proc/cpuinfo"), "model name"));
		m.put("memory", firstValue(Path.of("/proc/meminfo"), "MemTotal"));
		m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
				+ System.getProperty("os.arch"));
		m.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
		m.put("jvmArgsHost", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
		m.put("jvmArgsForks", (settings.forks > 0) ? "-Xms1g -Xmx1g" : "(in-process)");
		m.put("redis", redisVersion(nodes.get(0)));
		m.put("redisBinary", System.getenv().getOrDefault("BENCH_REDIS_BINARY", "?"));
		m.put("redisServers", nodes.size());
		m.put("commit", System.getenv().getOrDefault("BENCH_COMMIT", "?"));
		return m;
	}

	static Map<String, Object> versions() {
		Map<String, Object> v = new LinkedHashMap<>();
		v.put("jmh", org.openjdk.jmh.util.Version.getPlainVersion());
		v.put("lettuce", version("io.lettuce", "lettuce-core", RedisClient.class));
		v.put("redisson", version("org.redisson", "redisson", org.redisson.Redisson.class));
		v.put("springIntegration",
				version("org.springframework.integration", "spring-integration-redis", RedisLockRegistry.class));
		v.put("springDataRedis",
				version("org.springframework.data", "spring-data-redis", RedisConnectionFactory.class));
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

}
