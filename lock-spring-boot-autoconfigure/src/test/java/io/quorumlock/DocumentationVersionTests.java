package io.quorumlock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The version is written once, as {@code <revision>} in the root {@code pom.xml} (the
 * build appends {@code -SNAPSHOT} outside a release): every module inherits it, and every
 * dependency snippet and the compatibility table in {@code README.md} and {@code docs/**}
 * name exactly that release. Reads the files relative to the module directory, which is
 * the test's working directory.
 */
class DocumentationVersionTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Pattern REVISION = Pattern.compile("<revision>([^<]+)</revision>");

	private static final Pattern MAVEN = Pattern
		.compile("<artifactId>((?:lock|quorumlock)-[a-z0-9-]+)</artifactId>\\s*<version>([^<]*)</version>");

	private static final Pattern GRADLE = Pattern
		.compile("io\\.quorumlock:((?:lock|quorumlock)-[a-z0-9-]+):([^\"'`)\\s]+)");

	private static final Pattern SNAPSHOT = Pattern.compile("\\d+\\.\\d+[\\w.-]*-SNAPSHOT");

	private static final Pattern PARENT_VERSION = Pattern
		.compile("<parent>\\s*<groupId>io\\.quorumlock</groupId>\\s*<artifactId>quorumlock-parent</artifactId>\\s*"
				+ "<version>([^<]*)</version>");

	@Test
	void dependencySnippetsNameTheReleaseThePomBuilds() {
		String release = release();
		List<String> found = new ArrayList<>();
		List<String> wrong = new ArrayList<>();
		for (Path page : pages()) {
			String text = read(page);
			for (Pattern pattern : List.of(MAVEN, GRADLE)) {
				Matcher matcher = pattern.matcher(text);
				while (matcher.find()) {
					String snippet = ROOT.relativize(page) + ": " + matcher.group(1) + " " + matcher.group(2);
					found.add(snippet);
					if (!matcher.group(2).equals(release)) {
						wrong.add(snippet + " (the POM releases " + release + ")");
					}
				}
			}
		}
		assertThat(wrong).isEmpty();
		assertThat(found).anyMatch((snippet) -> snippet.startsWith("README.md: lock-spring-boot-starter"))
			.anyMatch((snippet) -> snippet.contains(": lock-test "))
			.anyMatch((snippet) -> snippet.contains(": quorumlock-bom "));
	}

	@Test
	void readmeCompatibilityTableNamesTheRelease() {
		String release = release();
		List<String> rows = new ArrayList<>();
		boolean inTable = false;
		for (String line : read(ROOT.resolve("README.md")).split("\\R")) {
			if (line.startsWith("| quorumlock |")) {
				inTable = true;
			}
			else if (!line.startsWith("|")) {
				inTable = false;
			}
			else if (inTable && !line.startsWith("|---")) {
				rows.add(line.substring(1, line.indexOf('|', 1)).trim());
			}
		}
		assertThat(rows).isNotEmpty().allMatch(release::equals);
	}

	@Test
	void noPageNamesASnapshotVersion() {
		List<String> found = new ArrayList<>();
		for (Path page : pages()) {
			Matcher matcher = SNAPSHOT.matcher(read(page));
			while (matcher.find()) {
				found.add(ROOT.relativize(page) + ": " + matcher.group());
			}
		}
		assertThat(found).isEmpty();
	}

	@Test
	void everyModuleInheritsTheOneVersion() {
		List<String> literal = new ArrayList<>();
		try (Stream<Path> modules = Files.list(ROOT)) {
			modules.map((module) -> module.resolve("pom.xml")).filter(Files::isRegularFile).forEach((pom) -> {
				Matcher matcher = PARENT_VERSION.matcher(read(pom));
				if (matcher.find() && !matcher.group(1).equals("${revision}${changelist}")) {
					literal.add(ROOT.relativize(pom) + ": " + matcher.group(1));
				}
			});
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		assertThat(literal).isEmpty();
		assertThat(read(ROOT.resolve("pom.xml"))).contains("<version>${revision}${changelist}</version>");
	}

	private static String release() {
		Matcher matcher = REVISION.matcher(read(ROOT.resolve("pom.xml")));
		assertThat(matcher.find()).as("<revision> in pom.xml").isTrue();
		return matcher.group(1);
	}

	private static List<Path> pages() {
		List<Path> pages = new ArrayList<>();
		pages.add(ROOT.resolve("README.md"));
		try (Stream<Path> files = Files.walk(ROOT.resolve("docs"))) {
			files.filter((file) -> file.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return pages;
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
