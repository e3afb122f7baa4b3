package io.quorumlock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The user documentation ({@code README.md} and {@code docs/**}) links only to files that
 * exist and to headings that exist, and speaks to users, not about the project's history.
 * Plain JDK, JUnit and AssertJ: it reads the Markdown files relative to the module
 * directory, which is the test's working directory.
 */
class DocumentationLinksTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Pattern LINK = Pattern
		.compile("!?\\[([^\\]]*)\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");

	private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");

	private static final Pattern FENCE = Pattern.compile("^ {0,3}(```|~~~)");

	private static final Pattern EXTERNAL = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

	private static final List<String> FORBIDDEN = List.of("issue 7", "issue #", "design card", "seed document");

	@Test
	void relativeLinksPointToExistingFilesAndHeadings() {
		List<String> broken = new ArrayList<>();
		for (Path page : pages()) {
			for (String target : links(page)) {
				String problem = check(page, target);
				if (problem != null) {
					broken.add(ROOT.relativize(page) + ": (" + target + ") " + problem);
				}
			}
		}
		assertThat(broken).isEmpty();
	}

	@Test
	void pagesSpeakToUsersNotAboutTheProjectsHistory() {
		List<String> found = new ArrayList<>();
		for (Path page : pages()) {
			String text = read(page).toLowerCase(Locale.ROOT);
			for (String word : FORBIDDEN) {
				if (text.contains(word)) {
					found.add(ROOT.relativize(page) + ": \"" + word + "\"");
				}
			}
		}
		assertThat(found).isEmpty();
	}

	@Test
	void theScanSeesTheReadmeAndTheDocs() {
		List<Path> pages = pages();
		assertThat(pages).contains(ROOT.resolve("README.md"));
		assertThat(pages).hasSizeGreaterThanOrEqualTo(5);
		assertThat(pages.stream().mapToInt((page) -> links(page).size()).sum()).isPositive();
	}

	@Test
	void slugsFollowGitHub() {
		assertThat(slug("Guarantees and limits")).isEqualTo("guarantees-and-limits");
		assertThat(slug("Using `@DistributedLock`")).isEqualTo("using-distributedlock");
		assertThat(slug("When to use it (and when not)")).isEqualTo("when-to-use-it-and-when-not");
		assertThat(slug("Security: TLS, least-privilege ACL, passwords"))
			.isEqualTo("security-tls-least-privilege-acl-passwords");
		assertThat(slug("`onFailure = SKIP`")).isEqualTo("onfailure--skip");
		assertThat(slug("quorumlock.max_key")).isEqualTo("quorumlockmax_key");
	}

	private static List<Path> pages() {
		List<Path> pages = new ArrayList<>();
		Path readme = ROOT.resolve("README.md");
		if (Files.isRegularFile(readme)) {
			pages.add(readme);
		}
		Path docs = ROOT.resolve("docs");
		if (Files.isDirectory(docs)) {
			try (Stream<Path> files = Files.walk(docs)) {
				files.filter((file) -> file.toString().endsWith(".md")).sorted().forEach(pages::add);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return pages;
	}

	private static String check(Path page, String target) {
		int hash = target.indexOf('#');
		String file = (hash >= 0) ? target.substring(0, hash) : target;
		String anchor = (hash >= 0) ? target.substring(hash + 1) : null;
		Path resolved = page;
		if (!file.isEmpty()) {
			resolved = page.getParent().resolve(URLDecoder.decode(file, StandardCharsets.UTF_8)).normalize();
			if (!Files.exists(resolved)) {
				return "no such file: " + ROOT.relativize(resolved);
			}
			if (!resolved.startsWith(ROOT)) {
				return "outside the repository";
			}
		}
		if (anchor == null || anchor.isEmpty()) {
			return null;
		}
		if (!resolved.toString().endsWith(".md")) {
			return "an anchor into a file that is not Markdown";
		}
		Set<String> anchors = anchors(resolved);
		return anchors.contains(anchor) ? null
				: "no heading with anchor #" + anchor + " in " + ROOT.relativize(resolved) + " (has " + anchors + ")";
	}

	private static List<String> links(Path page) {
		List<String> targets = new ArrayList<>();
		for (String line : prose(page)) {
			Matcher matcher = LINK.matcher(line);
			while (matcher.find()) {
				String target = matcher.group(2);
				if (!EXTERNAL.matcher(target).find()) {
					targets.add(target);
				}
			}
		}
		return targets;
	}

	/** GitHub's anchors of a page's headings, with -1, -2 for repeated ones. */
	private static Set<String> anchors(Path page) {
		Set<String> anchors = new LinkedHashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		for (String line : prose(page)) {
			Matcher matcher = HEADING.matcher(line);
			if (matcher.matches()) {
				String base = slug(matcher.group(2));
				int count = seen.merge(base, 1, Integer::sum);
				anchors.add((count == 1) ? base : base + "-" + (count - 1));
			}
		}
		return anchors;
	}

	/**
	 * GitHub's heading anchor: lower case, punctuation other than '-' and '_' dropped (so
	 * backticks too), each space a '-'.
	 */
	static String slug(String heading) {
		String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT).trim();
		StringBuilder slug = new StringBuilder();
		text.codePoints().forEach((c) -> {
			if (c == ' ') {
				slug.append('-');
			}
			else if (c == '-' || c == '_' || Character.isLetterOrDigit(c)) {
				slug.appendCodePoint(c);
			}
		});
		return slug.toString();
	}

	/** The page's lines outside fenced code blocks. */
	private static List<String> prose(Path page) {
		List<String> lines = new ArrayList<>();
		String fence = null;
		for (String line : read(page).split("\\R", -1)) {
			Matcher matcher = FENCE.matcher(line);
			if (matcher.find()) {
				if (fence == null) {
					fence = matcher.group(1);
				}
				else if (fence.equals(matcher.group(1))) {
					fence = null;
				}
				continue;
			}
			if (fence == null) {
				lines.add(line);
			}
		}
		return lines;
	}

	private static String read(Path page) {
		try {
			return Files.readString(page);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
