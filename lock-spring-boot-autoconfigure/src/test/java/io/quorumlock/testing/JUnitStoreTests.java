package io.quorumlock.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The masters that {@link RedisMasters} and {@link RedisServers} keep in JUnit's store
 * are stopped when their class is done, and JUnit has nothing to warn about them (JUnit 6
 * warns about a stored value that is a {@code CloseableResource} but not
 * {@code AutoCloseable}). Runs a class of its own through the JUnit Platform launcher and
 * listens to JUnit's log. Kept in this module so that the Boot 4 test modules run it
 * again, on JUnit 6.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JUnitStoreTests {

	@Test
	void mastersAreStoppedWithTheirClassWithoutAWarningFromJUnit() {
		List<String> warnings = new CopyOnWriteArrayList<>();
		Logger junit = Logger.getLogger("org.junit");
		Handler handler = new Handler() {

			@Override
			public void publish(LogRecord record) {
				if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
					warnings.add(String.valueOf(record.getMessage()));
				}
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}

		};
		junit.addHandler(handler);
		SummaryGeneratingListener summary = new SummaryGeneratingListener();
		try {
			LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
				.selectors(selectClass(AnnotatedMasters.class), selectClass(RegisteredMasters.class))
				.build();
			LauncherFactory.create().execute(request, summary);
		}
		finally {
			junit.removeHandler(handler);
		}
		assertThat(summary.getSummary().getFailures()).isEmpty();
		assertThat(summary.getSummary().getTestsSucceededCount()).isEqualTo(2);
		assertThat(AnnotatedMasters.seen).isNotNull();
		assertThat(AnnotatedMasters.seen.isRunning()).as("stopped with its class").isFalse();
		assertThat(RegisteredMasters.seen).isNotNull();
		assertThat(RegisteredMasters.seen.isRunning()).as("stopped with its class").isFalse();
		assertThat(warnings).noneMatch((warning) -> warning.contains("CloseableResource"));
	}

	/** Masters of the annotation; run only through the launcher above. */
	@RedisMasters(1)
	static class AnnotatedMasters {

		static volatile RedisServer seen;

		@Test
		void runs(RedisServers masters) {
			seen = masters.node(0);
			assertThat(seen.isRunning()).isTrue();
		}

	}

	/** Masters of a registered extension; run only through the launcher above. */
	static class RegisteredMasters {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(1);

		static volatile RedisServer seen;

		@Test
		void runs() {
			seen = redis.node(0);
			assertThat(seen.isRunning()).isTrue();
		}

	}

}
