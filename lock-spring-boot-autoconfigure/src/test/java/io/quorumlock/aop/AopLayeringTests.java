package io.quorumlock.aop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The aspect talks to the engine only through the API: nothing in
 * {@code io.quorumlock.aop} imports the engine, Lettuce, Spring Boot or AspectJ, so it
 * also works in a plain Spring application.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class AopLayeringTests {

	private static final Path SOURCES = Path.of("src/main/java/io/quorumlock/aop");

	@Test
	void aopImportsOnlyTheApiSpringAndReactor() throws IOException {
		List<String> violations = new ArrayList<>();
		List<Path> files;
		try (Stream<Path> list = Files.list(SOURCES)) {
			files = list.filter((file) -> file.toString().endsWith(".java")).toList();
		}
		assertThat(files).isNotEmpty();
		for (Path file : files) {
			for (String line : Files.readAllLines(file)) {
				String trimmed = line.trim();
				if (trimmed.startsWith("import ") && forbidden(trimmed.substring("import ".length()))) {
					violations.add(file.getFileName() + ": " + trimmed);
				}
			}
		}
		assertThat(violations).isEmpty();
	}

	private static boolean forbidden(String imported) {
		return Stream
			.of("io.quorumlock.redis", "io.quorumlock.autoconfigure", "io.quorumlock.actuate", "io.lettuce", "io.netty",
					"org.springframework.boot", "org.aspectj")
			.anyMatch(imported::startsWith);
	}

}
