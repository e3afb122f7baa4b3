package io.quorumlock.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

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

	/** A class of the embedded-redis jar, used to locate the jar on the class path. */
	private static final String EMBEDDED_MARKER = "redis/embedded/RedisServer.class";

	private static final System.Logger logger = System.getLogger(RedisBinary.class.getName());

	private static final Map<Path, String> versions = new ConcurrentHashMap<>();

	private static final Object embeddedLock = new Object();

	private static volatile Path embedded;

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
		if (binary.equals(embedded)) {
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
				binary = embedded();
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
				binary = embedded();
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

	/**
	 * The binary from the embedded-redis jar for this platform, extracted once per JVM to
	 * a temp file.
	 */
	static Path embedded() {
		Path result = embedded;
		if (result != null) {
			return result;
		}
		synchronized (embeddedLock) {
			if (embedded == null) {
				embedded = extract(embeddedResourceName());
			}
			return embedded;
		}
	}

	/**
	 * The suffix of the jar resource for this OS/architecture, e.g. {@code -linux-amd64}.
	 */
	static String platformSuffix() {
		String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
		String osPart;
		if (os.contains("linux")) {
			osPart = "linux";
		}
		else if (os.contains("mac") || os.contains("darwin")) {
			osPart = "darwin";
		}
		else {
			throw new IllegalStateException("RedisServers supports Linux and macOS only (kill -STOP/-CONT), not '"
					+ System.getProperty("os.name") + "'");
		}
		String archPart = switch (arch) {
			case "amd64", "x86_64" -> "amd64";
			case "aarch64", "arm64" -> "arm64";
			case "x86", "i386", "i486", "i586", "i686" -> "386";
			default -> arch;
		};
		return "-" + osPart + "-" + archPart;
	}

	private static String embeddedResourceName() {
		String suffix = platformSuffix();
		List<String> available = embeddedResources();
		for (String name : available) {
			if (name.endsWith(suffix)) {
				return name;
			}
		}
		throw new IllegalStateException("The embedded-redis jar has no redis-server binary for this platform (os.name="
				+ System.getProperty("os.name") + ", os.arch=" + System.getProperty("os.arch") + ", wanted *" + suffix
				+ "); it ships " + available + ". Install redis-server or set " + ENV + " to its path.");
	}

	/**
	 * Names of the {@code redis-server-*} resources at the root of the embedded-redis
	 * jar.
	 */
	private static List<String> embeddedResources() {
		URL marker = RedisBinary.class.getClassLoader().getResource(EMBEDDED_MARKER);
		if (marker == null) {
			throw new IllegalStateException("com.github.codemonstur:embedded-redis is not on the test class path ("
					+ EMBEDDED_MARKER + " not found); cannot use the embedded redis-server");
		}
		List<String> names = new ArrayList<>();
		try {
			if ("jar".equals(marker.getProtocol())) {
				URLConnection connection = marker.openConnection();
				connection.setUseCaches(false);
				try (JarFile jar = ((JarURLConnection) connection).getJarFile()) {
					Enumeration<JarEntry> entries = jar.entries();
					while (entries.hasMoreElements()) {
						String name = entries.nextElement().getName();
						if (name.startsWith("redis-server-") && name.indexOf('/') < 0) {
							names.add(name);
						}
					}
				}
			}
			else if ("file".equals(marker.getProtocol())) {
				Path root = Paths.get(marker.toURI()).getParent().getParent().getParent();
				try (Stream<Path> files = Files.list(root)) {
					files.map((p) -> p.getFileName().toString())
						.filter((n) -> n.startsWith("redis-server-"))
						.forEach(names::add);
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot list the embedded-redis jar at " + marker, ex);
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException("Cannot list the embedded-redis classes at " + marker, ex);
		}
		names.sort(null);
		return names;
	}

	private static Path extract(String resource) {
		try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("Resource " + resource + " listed but not readable");
			}
			Path dir = Files.createTempDirectory("quorumlock-embedded-redis-");
			dir.toFile().deleteOnExit();
			Path target = dir.resolve(resource);
			Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
			target.toFile().deleteOnExit();
			if (!target.toFile().setExecutable(true, true)) {
				throw new IllegalStateException("Cannot make " + target + " executable");
			}
			logger.log(Level.INFO, "Extracted embedded redis-server /{0} to {1}", resource, target);
			return target;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot extract embedded redis-server " + resource, ex);
		}
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

}
