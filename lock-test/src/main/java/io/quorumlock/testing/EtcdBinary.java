package io.quorumlock.testing;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Finds the {@code etcd} executable that {@link EtcdMembers} runs: the system property
 * {@value #PROPERTY}, else the environment variable {@value #ENV}, else {@code etcd} on
 * the {@code PATH}. There is no embedded fallback: without a binary the fixture fails
 * with a message saying how to get one (Debian's {@code etcd-server} package gives
 * {@code /usr/bin/etcd}, 3.4; CI installs it through {@code .ci/etcd}).
 */
public final class EtcdBinary {

	/** System property naming the binary. */
	public static final String PROPERTY = "quorumlock.test.etcd";

	/** Environment variable naming the binary. */
	public static final String ENV = "ETCD_BINARY";

	private EtcdBinary() {
	}

	/**
	 * Resolve the binary now (the property and environment are read on each call).
	 * @return the path of an executable {@code etcd}
	 * @throws IllegalStateException if the configured path is not executable, or no
	 * {@code etcd} is on the {@code PATH}, saying how to install one
	 */
	public static Path resolve() {
		String configured = System.getProperty(PROPERTY);
		String source = "system property " + PROPERTY;
		if (configured == null || configured.isBlank()) {
			configured = System.getenv(ENV);
			source = "environment variable " + ENV;
		}
		if (configured != null && !configured.isBlank()) {
			Path path = Paths.get(configured);
			if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
				throw new IllegalStateException(source + " names " + path + ", which is not an executable file");
			}
			return path;
		}
		String pathVariable = System.getenv("PATH");
		if (pathVariable != null) {
			for (String dir : pathVariable.split(File.pathSeparator)) {
				if (dir.isEmpty()) {
					continue;
				}
				Path candidate = Paths.get(dir, "etcd");
				if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		throw new IllegalStateException("No etcd binary: set -D" + PROPERTY + "=/path/to/etcd or " + ENV
				+ ", or put etcd on the PATH (Debian/Ubuntu: apt-get install etcd-server; CI runs .ci/etcd)");
	}

}
