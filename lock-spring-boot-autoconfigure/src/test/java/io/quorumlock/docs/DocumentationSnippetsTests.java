package io.quorumlock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.quorumlock.autoconfigure.QuorumLockAutoConfiguration;
import io.quorumlock.autoconfigure.QuorumLockShedLockAutoConfiguration;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;
import io.quorumlock.autoconfigure.BoundedWait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Java snippets of a documentation page are the sources of this package, token for
 * token (the formatter may change their whitespace, nothing else), so the page's example
 * compiles as written; and the moving-from-ShedLock example runs its job on three
 * masters.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DocumentationSnippetsTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Path HERE = ROOT.resolve("lock-spring-boot-autoconfigure/src/test/java/io/quorumlock/docs");

	private static final Pattern JAVA = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	@Test
	void movingFromShedLockSnippetsAfterTheMoveAreCompiledHere() {
		String page = read(ROOT.resolve("docs/moving-from-shedlock.md"));
		String after = page.substring(page.indexOf("## After: the same jobs on a quorum"),
				page.indexOf("## How ShedLock's settings map"));
		List<String> snippets = snippets(after);
		assertThat(snippets).hasSize(2);
		assertThat(snippets.get(0)).as("the page's configuration snippet")
			.isEqualTo(tokens(source("SchedulingConfiguration.java")));
		assertThat(snippets.get(1)).as("the page's job snippet").isEqualTo(tokens(source("NightlyReport.java")));
	}

	@Test
	void movingFromShedLockExampleRunsItsJobUnderTheLock() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(QuorumLockAutoConfiguration.class, QuorumLockShedLockAutoConfiguration.class))
			.withUserConfiguration(SchedulingConfiguration.class, NightlyReport.class)
			.withPropertyValues("quorumlock.nodes=" + String.join(",", redis.uris()), "quorumlock.rejoin-delay=0s",
					BoundedWait.NODE_TIMEOUT)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				context.getBean(NightlyReport.class).run();
				// the job ran under the lock, which stays for lockAtLeastFor (30s)
				for (RedisServer node : redis.nodes()) {
					await().atMost(Duration.ofSeconds(5)).until(() -> node.pttl("lock:shedlock:{nightly-report}") > 0);
					assertThat(node.pttl("lock:shedlock:{nightly-report}")).isLessThanOrEqualTo(30_000);
				}
			});
	}

	/** Each Java snippet of the text, as tokens. */
	private static List<String> snippets(String text) {
		List<String> found = new ArrayList<>();
		Matcher matcher = JAVA.matcher(text);
		while (matcher.find()) {
			found.add(tokens(matcher.group(1)));
		}
		return found;
	}

	/** A source of this package without its package line, as tokens. */
	private static String source(String file) {
		String text = read(HERE.resolve(file));
		return text.substring(text.indexOf('\n', text.indexOf("package ")) + 1);
	}

	/** The text without its whitespace, which the formatter owns. */
	private static String tokens(String text) {
		return text.replaceAll("\\s+", "");
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
