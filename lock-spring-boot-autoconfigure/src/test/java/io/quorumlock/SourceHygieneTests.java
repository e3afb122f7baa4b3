package io.quorumlock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sources read as the code they are, not as the project's history: no issue numbers
 * or references to the project's seed documents in code, tests, scripts or the benchmarks
 * (the dated result records excepted), and no fully-qualified type name spelled out in
 * main code where an import works (a name that clashes with one already imported is the
 * exception, and says so by being listed below).
 */
class SourceHygieneTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Pattern HISTORY = Pattern.compile("\\bissue (?:#|\\d)|seed documents?\\b|the seed's");

	private static final Pattern QUALIFIED = Pattern.compile(
			"(?<![\\w.\"@{#])(?:io\\.quorumlock|java|javax|jakarta|io\\.lettuce|org\\.springframework|io\\.netty|io\\.micrometer|reactor)(?:\\.[a-z][a-z0-9_]*)*\\.[A-Z]\\w*");

	/** The tests that look for history words, and so name them. */
	private static final Set<String> CHECKS = Set.of("SourceHygieneTests.java", "DocumentationLinksTests.java");

	/** Where a qualified name is needed: another type of that simple name is imported. */
	private static final Set<String> CLASHES = Set.of("QuorumLockSsl.java",
			"DistributedLockHealthContributorAutoConfiguration.java");

	@Test
	void noHistoryWordsInSources() {
		List<String> found = new ArrayList<>();
		for (Path file : files((path) -> isSource(path) || path.toString().endsWith(".sh"))) {
			if (CHECKS.contains(file.getFileName().toString())) {
				continue; // the checks name what they look for
			}
			List<String> lines = lines(file);
			for (int i = 0; i < lines.size(); i++) {
				if (HISTORY.matcher(lines.get(i).toLowerCase(Locale.ROOT)).find()) {
					found.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).trim());
				}
			}
		}
		assertThat(found).isEmpty();
	}

	@Test
	void noQualifiedNamesWhereAnImportWorks() {
		List<String> found = new ArrayList<>();
		for (Path file : files((path) -> isSource(path) && path.toString().contains("/src/main/java/"))) {
			if (CLASHES.contains(file.getFileName().toString())) {
				continue;
			}
			List<String> lines = lines(file);
			for (int i = 0; i < lines.size(); i++) {
				String line = lines.get(i).trim();
				if (line.startsWith("import ") || line.startsWith("package ") || line.startsWith("*")
						|| line.startsWith("/*") || line.startsWith("//") || line.contains("\"")) {
					continue;
				}
				Matcher m = QUALIFIED.matcher(line);
				if (m.find()) {
					found.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + m.group());
				}
			}
		}
		assertThat(found).isEmpty();
	}

	@Test
	void theScanSeesTheSources() {
		assertThat(files((path) -> isSource(path) && path.toString().contains("/src/main/java/")))
			.hasSizeGreaterThan(100);
	}

	private static boolean isSource(Path path) {
		return path.toString().endsWith(".java");
	}

	private static List<Path> files(Predicate<Path> wanted) {
		try (Stream<Path> all = Files.walk(ROOT)) {
			return all
				.filter((path) -> !path.toString().contains("/target/") && !path.toString().contains("/.git/")
						&& !path.toString().contains("/node_modules/"))
				.filter(Files::isRegularFile)
				.filter(wanted)
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static List<String> lines(Path file) {
		try {
			return Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
