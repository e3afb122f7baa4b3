package io.quorumlock.etcd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules of the etcd module, as a scan of its sources: it is built on the public API
 * only (nothing of the Redis engine), imports nothing of Spring, Micrometer or AspectJ,
 * never uses etcd's lock or election services (their recipes re-send unlocks and miss a
 * waiter's own expiry), and only {@code EtcdCalls} sends requests to etcd.
 */
class EtcdLayeringTests {

	private static final Path SOURCES = Paths.get("src/main/java/io/quorumlock/etcd");

	@Test
	void theEtcdModuleUsesThePublicApiOnly() throws IOException {
		assertThat(importsMatching("import io.quorumlock.redis")).isEmpty();
	}

	@Test
	void theEtcdModuleImportsNoSpringMicrometerOrAspectJ() throws IOException {
		assertThat(importsMatching("import org.springframework")).isEmpty();
		assertThat(importsMatching("import io.micrometer")).isEmpty();
		assertThat(importsMatching("import org.aspectj")).isEmpty();
	}

	@Test
	void etcdsLockAndElectionServicesAreNeverUsed() throws IOException {
		assertThat(linesMatching("getLockClient")).isEmpty();
		assertThat(linesMatching("getElectionClient")).isEmpty();
		assertThat(importsMatching("import io.etcd.jetcd.lock")).isEmpty();
		assertThat(importsMatching("import io.etcd.jetcd.Lock;")).isEmpty();
	}

	@Test
	void onlyEtcdCallsSendsRequests() throws IOException {
		List<String> senders = new ArrayList<>();
		for (Path file : sources()) {
			String text = Files.readString(file, StandardCharsets.UTF_8);
			if (!file.endsWith("EtcdCalls.java") && (text.contains("getKVClient()") || text.contains("getLeaseClient()")
					|| text.contains("getWatchClient()"))) {
				senders.add(file.getFileName().toString());
			}
		}
		assertThat(senders).isEmpty();
	}

	private static List<String> importsMatching(String prefix) throws IOException {
		return linesMatching(prefix);
	}

	private static List<String> linesMatching(String text) throws IOException {
		List<String> found = new ArrayList<>();
		for (Path file : sources()) {
			List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
			for (int i = 0; i < lines.size(); i++) {
				if (lines.get(i).contains(text)) {
					found.add(file.getFileName() + ":" + (i + 1) + ": " + lines.get(i).trim());
				}
			}
		}
		return found;
	}

	private static List<Path> sources() throws IOException {
		try (Stream<Path> files = Files.walk(SOURCES)) {
			return files.filter((file) -> file.toString().endsWith(".java")).toList();
		}
	}

}
