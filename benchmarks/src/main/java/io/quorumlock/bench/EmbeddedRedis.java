package io.quorumlock.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Extracts the {@code redis-server} shipped in the
 * {@code com.github.codemonstur:embedded-redis} jar for this OS and architecture, so that
 * {@code run.sh} works with only a JDK. Usage: {@code EmbeddedRedis <directory>}; prints
 * the path of the executable.
 */
public final class EmbeddedRedis {

	private static final String MARKER = "redis/embedded/RedisServer.class";

	private EmbeddedRedis() {
	}

	/**
	 * Extract the binary.
	 * @param args the target directory
	 * @throws IOException if it cannot be extracted
	 */
	public static void main(String[] args) throws IOException {
		Path dir = Path.of((args.length > 0) ? args[0] : System.getProperty("java.io.tmpdir"));
		String suffix = platformSuffix();
		String resource = null;
		List<String> available = resources();
		for (String name : available) {
			if (name.endsWith(suffix)) {
				resource = name;
			}
		}
		if (resource == null) {
			throw new IllegalStateException("the embedded-redis jar has no redis-server for *" + suffix + " (it ships "
					+ available + "); install redis-server or set REDIS_SERVER");
		}
		Files.createDirectories(dir);
		Path target = dir.resolve(resource);
		if (!Files.isExecutable(target)) {
			try (InputStream in = EmbeddedRedis.class.getClassLoader().getResourceAsStream(resource)) {
				Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
			}
			if (!target.toFile().setExecutable(true, true)) {
				throw new IllegalStateException("cannot make " + target + " executable");
			}
		}
		System.out.println(target.toAbsolutePath());
	}

	private static String platformSuffix() {
		String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
		String osPart = os.contains("linux") ? "linux" : (os.contains("mac") || os.contains("darwin")) ? "darwin" : os;
		String archPart = switch (arch) {
			case "amd64", "x86_64" -> "amd64";
			case "aarch64", "arm64" -> "arm64";
			default -> arch;
		};
		return "-" + osPart + "-" + archPart;
	}

	private static List<String> resources() throws IOException {
		URL marker = EmbeddedRedis.class.getClassLoader().getResource(MARKER);
		if (marker == null || !"jar".equals(marker.getProtocol())) {
			throw new IllegalStateException("embedded-redis is not on the class path as a jar (" + MARKER + ")");
		}
		List<String> names = new ArrayList<>();
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
		names.sort(null);
		return names;
	}

}
