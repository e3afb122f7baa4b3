package io.quorumlock.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Finds the {@code redis-server} executable used by {@link RedisServers}, the sample
 * application's embedded masters and the benchmarks: the one lookup of the project.
 * <p>
 * Order: system property {@value #PROPERTY}, env {@value #ENV} (a path, or
 * {@code embedded}), {@code redis-server} on the {@code PATH}, else the binary shipped in
 * the {@code com.github.codemonstur:embedded-redis} jar (Redis 6.2, Linux and macOS), so
 * that only a JDK is needed.
 */
public final class RedisBinary {

	/**
	 * System property naming the binary; {@code embedded} forces the one from the
	 * embedded-redis jar.
	 */
	static final String PROPERTY = "quorumlock.test.redis-server";

	/**
	 * Environment variable naming the binary; {@code embedded} forces the one from the
	 * embedded-redis jar.
	 */
	static final String ENV = "REDIS_SERVER";

	static final String EMBEDDED = "embedded";

	private static final System.Logger logger = System.getLogger(RedisBinary.class.getName());

	private static final Map<Path, String> versions = new ConcurrentHashMap<>();

	private RedisBinary() {
	}

	/**
	 * Print the path of a usable {@code redis-server}, for scripts. An embedded binary is
	 * copied into the directory given as the first argument, where it outlives this JVM
	 * (the copy {@link #resolve()} makes is deleted when the JVM exits).
	 * @param args the directory for an embedded binary
	 * @throws IOException if the binary cannot be copied
	 */
	public static void main(String[] args) throws IOException {
		if (args.length != 1) {
			System.err.println("usage: RedisBinary <directory for an embedded binary>");
			System.exit(2);
		}
		Path binary = resolve();
		if (EmbeddedRedisBinary.isExtracted(binary)) {
			Path dir = Files.createDirectories(Paths.get(args[0]));
			Path kept = dir.resolve(binary.getFileName());
			Files.copy(binary, kept, StandardCopyOption.REPLACE_EXISTING);
			if (!kept.toFile().setExecutable(true, true)) {
				throw new IllegalStateException("Cannot make " + kept + " executable");
			}
			binary = kept;
		}
		System.out.println(binary);
	}

	/**
	 * Resolve the binary, reading the property and environment now (not cached) so a test
	 * can force the embedded binary. An embedded binary is extracted once per JVM to a
	 * temporary file deleted when the JVM exits.
	 * @return the path of an executable {@code redis-server}
	 * @throws IllegalStateException if the configured path is not an executable file, or
	 * no binary can be found for this platform
	 */
	public static Path resolve() {
		String configured = System.getProperty(PROPERTY);
		String source = "system property " + PROPERTY;
		if (configured == null || configured.isBlank()) {
			configured = System.getenv(ENV);
			source = "environment variable " + ENV;
		}
		Path binary;
		if (configured != null && !configured.isBlank()) {
			configured = configured.trim();
			if (EMBEDDED.equalsIgnoreCase(configured)) {
				binary = EmbeddedRedisBinary.path();
				source += "=embedded";
			}
			else {
				binary = Paths.get(configured).toAbsolutePath();
				if (!Files.isRegularFile(binary) || !Files.isExecutable(binary)) {
					throw new IllegalStateException(
							source + " points to " + binary + ", which is not an executable file");
				}
			}
		}
		else {
			binary = onPath();
			source = "PATH";
			if (binary == null) {
				binary = EmbeddedRedisBinary.path();
				source = "embedded-redis jar (no redis-server on the PATH)";
			}
		}
		logOnce(binary, source);
		return binary;
	}

	private static Path onPath() {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String dir : path.split(File.pathSeparator)) {
			if (dir.isEmpty()) {
				continue;
			}
			Path candidate = Paths.get(dir, "redis-server");
			if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
				return candidate.toAbsolutePath();
			}
		}
		return null;
	}

	private static void logOnce(Path binary, String source) {
		versions.computeIfAbsent(binary, (b) -> {
			String version = version(b);
			logger.log(Level.INFO, "RedisServers uses {0} ({1}) from {2}", b, version, source);
			return version;
		});
	}

	/**
	 * The first line of {@code redis-server --version}, or a short description of why it
	 * is unknown.
	 */
	static String version(Path binary) {
		try {
			Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
			byte[] out;
			try (InputStream in = process.getInputStream()) {
				out = in.readNBytes(4096);
			}
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				return "version unknown: --version timed out";
			}
			String text = new String(out, StandardCharsets.UTF_8).trim();
			int newline = text.indexOf('\n');
			return (newline < 0) ? text : text.substring(0, newline);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot run " + binary + " --version", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "version unknown: interrupted";
		}
	}

	/**
	 * Whether {@code binary} was built with TLS. A binary built without it accepts the
	 * {@code tls-*} settings all the same, so this looks for OpenSSL in the executable
	 * itself (its {@code SSL_CTX_new} symbol, linked or dynamic).
	 */
	static boolean supportsTls(Path binary) {
		try {
			byte[] bytes = Files.readAllBytes(binary.toRealPath());
			byte[] needle = "SSL_CTX_new".getBytes(StandardCharsets.US_ASCII);
			outer: for (int i = 0; i + needle.length <= bytes.length; i++) {
				for (int j = 0; j < needle.length; j++) {
					if (bytes[i + j] != needle[j]) {
						continue outer;
					}
				}
				return true;
			}
			return false;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + binary, ex);
		}
	}

}
