package io.quorumlock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layering rule of the style guide, enforced without a plugin: the API and the engine
 * import nothing from Spring Boot, Micrometer or AspectJ, and the API imports nothing but
 * the JDK; the transport wing ({@code redis.node}) sits below the algorithm
 * ({@code redis}), which alone speaks Lettuce only in its settings types.
 */
class LayeringTests {

	private static final Path SOURCES = Path.of("src/main/java/io/quorumlock");

	private static final List<String> NOT_IN_ENGINE = List.of("org.springframework", "io.micrometer", "org.aspectj");

	@Test
	void apiAndEngineDoNotImportSpringMicrometerOrAspectj() throws IOException {
		List<String> violations = new ArrayList<>();
		for (String pkg : List.of("", "redis", "redis/node")) {
			violations.addAll(importsStartingWith(pkg, NOT_IN_ENGINE));
		}
		assertThat(violations).isEmpty();
	}

	@Test
	void apiImportsOnlyTheJdk() throws IOException {
		assertThat(importsStartingWith("", List.of("io.lettuce", "io.netty", "reactor", "org.", "com."))).isEmpty();
	}

	@Test
	void theTransportWingImportsNothingOfTheAlgorithm() throws IOException {
		assertThat(importsStartingWith("redis/node", List.of("io.quorumlock.redis.")))
			.allMatch((hit) -> hit.contains("import io.quorumlock.redis.node."));
	}

	@Test
	void outsideTheTransportWingOnlyTheSettingsTypesImportLettuce() throws IOException {
		List<String> settings = List.of("EngineSettings.java", "EngineBuilder.java", "NodeUri.java",
				"EngineRuntime.java");
		assertThat(importsStartingWith("redis", List.of("io.lettuce")))
			.allMatch((hit) -> settings.stream().anyMatch((file) -> hit.contains("/" + file + ":")));
	}

	@Test
	void theScanSeesTheSources() throws IOException {
		// guards the tests above against scanning nothing
		assertThat(javaFiles("")).isNotEmpty();
		assertThat(javaFiles("redis")).isNotEmpty();
		assertThat(importsStartingWith("redis", List.of("io.lettuce"))).isNotEmpty();
		assertThat(importsStartingWith("redis/node", List.of("io.lettuce"))).isNotEmpty();
	}

	private static List<String> importsStartingWith(String pkg, List<String> prefixes) throws IOException {
		List<String> hits = new ArrayList<>();
		for (Path file : javaFiles(pkg)) {
			for (String line : Files.readAllLines(file)) {
				String trimmed = line.trim();
				if (!trimmed.startsWith("import ")) {
					continue;
				}
				String imported = trimmed.substring("import ".length()).replace("static ", "");
				for (String prefix : prefixes) {
					if (imported.startsWith(prefix)) {
						hits.add(file + ": " + trimmed);
					}
				}
			}
		}
		return hits;
	}

	private static List<Path> javaFiles(String pkg) throws IOException {
		Path dir = pkg.isEmpty() ? SOURCES : SOURCES.resolve(pkg);
		try (Stream<Path> files = Files.list(dir)) {
			return files.filter((f) -> f.toString().endsWith(".java")).toList();
		}
	}

}
