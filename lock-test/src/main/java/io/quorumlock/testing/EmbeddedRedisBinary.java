package io.quorumlock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The {@code redis-server} shipped in the {@code com.github.codemonstur:embedded-redis}
 * jar, the last resort of {@link RedisBinary}: the resource for this OS and architecture,
 * extracted once per JVM to a temporary file deleted when the JVM exits.
 */
final class EmbeddedRedisBinary {

	/** A class of the embedded-redis jar, used to locate the jar on the class path. */
	private static final String EMBEDDED_MARKER = "redis/embedded/RedisServer.class";

	private static final System.Logger logger = System.getLogger(EmbeddedRedisBinary.class.getName());

	private static final Object embeddedLock = new Object();

	private static volatile Path embedded;

	private EmbeddedRedisBinary() {
	}

	/**
	 * Whether {@code binary} is the copy this JVM extracted (and will delete on exit).
	 */
	static boolean isExtracted(Path binary) {
		return binary.equals(embedded);
	}

	/**
	 * The binary from the embedded-redis jar for this platform, extracted once per JVM to
	 * a temp file.
	 */
	static Path path() {
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
				+ "); it ships " + available + ". Install redis-server or set " + RedisBinary.ENV + " to its path.");
	}

	/**
	 * Names of the {@code redis-server-*} resources at the root of the embedded-redis
	 * jar.
	 */
	private static List<String> embeddedResources() {
		URL marker = EmbeddedRedisBinary.class.getClassLoader().getResource(EMBEDDED_MARKER);
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
		try (InputStream in = EmbeddedRedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
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

}
