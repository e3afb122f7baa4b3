package io.quorumlock.sample.embedded;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

import redis.embedded.core.ExecutableProvider;

/**
 * Finds a {@code redis-server} executable: the {@code REDIS_SERVER} environment variable
 * (a path), else {@code redis-server} on the {@code PATH}, else the binary shipped inside
 * the {@code com.github.codemonstur:embedded-redis} jar (Redis 6.2, Linux and macOS),
 * extracted to a temporary file.
 */
public final class RedisServerBinary {

	/** Environment variable naming the binary. */
	public static final String ENV = "REDIS_SERVER";

	private RedisServerBinary() {
	}

	/**
	 * Print the path of a usable {@code redis-server}, for scripts. An embedded binary is
	 * extracted into the directory given as the first argument (it is kept, unlike the
	 * temporary copy {@link #resolve()} makes).
	 * @param args the directory to extract an embedded binary into
	 * @throws IOException if the binary cannot be extracted
	 */
	public static void main(String[] args) throws IOException {
		if (args.length != 1) {
			System.err.println("usage: RedisServerBinary <directory for an extracted binary>");
			System.exit(2);
		}
		Resolved resolved = find();
		Path binary = (resolved != null) ? resolved.path() : extract(Files.createDirectories(Paths.get(args[0])));
		System.out.println(binary);
	}

	/**
	 * Resolve the binary, extracting the embedded one to a temporary file deleted when
	 * the JVM exits.
	 * @return the binary and where it came from
	 */
	public static Resolved resolve() {
		Resolved found = find();
		if (found != null) {
			return found;
		}
		try {
			Path dir = Files.createTempDirectory("quorumlock-sample-redis-");
			Path binary = extract(dir);
			binary.toFile().deleteOnExit();
			dir.toFile().deleteOnExit();
			return new Resolved(binary, "the embedded-redis jar (no " + ENV + ", no redis-server on the PATH)");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot extract the redis-server binary of the embedded-redis jar", ex);
		}
	}

	private static Resolved find() {
		String configured = System.getenv(ENV);
		if (configured != null && !configured.isBlank()) {
			Path binary = Paths.get(configured.trim()).toAbsolutePath();
			if (!Files.isRegularFile(binary) || !Files.isExecutable(binary)) {
				throw new IllegalStateException(
						"Environment variable " + ENV + " is '" + configured + "', which is not an executable file");
			}
			return new Resolved(binary, "environment variable " + ENV);
		}
		String path = System.getenv("PATH");
		if (path != null) {
			for (String dir : path.split(File.pathSeparator)) {
				Path candidate = dir.isEmpty() ? null : Paths.get(dir, "redis-server");
				if (candidate != null && Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
					return new Resolved(candidate.toAbsolutePath(), "the PATH");
				}
			}
		}
		return null;
	}

	/**
	 * Copy this platform's binary out of the embedded-redis jar into {@code dir}. The
	 * resource names come from the jar itself ({@code newProvidedVersionsMap}), so a new
	 * version of the jar needs no change here.
	 */
	static Path extract(Path dir) throws IOException {
		String suffix = platformSuffix();
		String resource = ExecutableProvider.newProvidedVersionsMap()
			.values()
			.stream()
			.filter((name) -> name.endsWith(suffix))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("The embedded-redis jar has no redis-server for "
					+ System.getProperty("os.name") + "/" + System.getProperty("os.arch") + " (wanted *" + suffix
					+ "); install redis-server or set " + ENV + " to its path"));
		String name = resource.startsWith("/") ? resource.substring(1) : resource;
		try (InputStream in = RedisServerBinary.class.getClassLoader().getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Resource " + name + " is missing from the embedded-redis jar");
			}
			Path target = dir.resolve(name);
			Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
			if (!target.toFile().setExecutable(true, true)) {
				throw new IllegalStateException("Cannot make " + target + " executable");
			}
			return target;
		}
	}

	private static String platformSuffix() {
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
			throw new IllegalStateException("The sample's embedded masters need Linux or macOS, not '"
					+ System.getProperty("os.name") + "'; start Redis yourself and set quorumlock.nodes");
		}
		String archPart = switch (arch) {
			case "amd64", "x86_64" -> "amd64";
			case "aarch64", "arm64" -> "arm64";
			case "x86", "i386", "i486", "i586", "i686" -> "386";
			default -> arch;
		};
		return "-" + osPart + "-" + archPart;
	}

	/**
	 * A resolved binary.
	 *
	 * @param path the executable
	 * @param source where it was found, for the log
	 */
	public record Resolved(Path path, String source) {
	}

}
