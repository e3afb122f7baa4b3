package io.quorumlock.autoconfigure;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.provider.Arguments;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the bad-input tests of each layer share: a case (what to run, what it must throw,
 * what the message must say), the check that runs it, and the start-up of a context that
 * must fail with a failure analysis naming the same fragments.
 */
final class BadInput {

	static final String PASSWORD = "pw-9f3c-secret";

	/** A node nobody listens on: the start-up fails before it would connect. */
	static final String CLOSED = "redis://127.0.0.1:1";

	static final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, QuorumLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.rejoin-delay=0s");

	private BadInput() {
	}

	/**
	 * Run a case: it must throw (or return) its type, with every fragment in the message,
	 * and never the password.
	 */
	static void assertRefused(Case badInput) {
		Object outcome;
		try {
			outcome = badInput.run().call();
		}
		catch (Throwable ex) {
			outcome = ex;
		}
		Object subject = (outcome instanceof CauseWithRoot wrapper) ? wrapper.getCause() : outcome;
		assertThat(subject).as("outcome of %s", badInput).isNotNull().isInstanceOf(badInput.type());
		String message = (outcome instanceof Throwable ex) ? ex.getMessage() : outcome.toString();
		for (String fragment : badInput.fragments()) {
			assertThat(message).as("message of %s", badInput).contains(fragment);
		}
		assertThat(message).doesNotContain(PASSWORD);
	}

	static Stream<Arguments> arguments(List<Case> cases) {
		return cases.stream().map((c) -> Arguments.of(Named.of(c.name(), c)));
	}

	static Case startup(String name, Class<? extends Throwable> type, Object configuration, String... fragments) {
		return new Case(name, () -> startupFailure(type, configuration, fragments), type, fragments);
	}

	/**
	 * Start a context that must fail; return the failure of the expected type from the
	 * cause chain, after checking that a failure analyzer describes it with the same
	 * fragments. The returned exception's message is the one asserted, extended by its
	 * root cause's when the two differ (a binding failure names the property, its root
	 * cause the value).
	 */
	private static Object startupFailure(Class<? extends Throwable> type, Object configuration, String[] fragments) {
		ApplicationContextRunner context = runner;
		if (configuration instanceof Class<?> bean) {
			// the node timeout set, as the one-node default would fit the annotated
			// leases
			context = context.withPropertyValues("quorumlock.nodes=" + CLOSED, "quorumlock.node-timeout=50ms")
				.withUserConfiguration(bean);
		}
		else {
			@SuppressWarnings("unchecked")
			List<String> properties = (List<String>) configuration;
			context = context.withPropertyValues(properties.toArray(String[]::new));
		}
		AtomicReference<Throwable> found = new AtomicReference<>();
		context.run((started) -> {
			assertThat(started).hasFailed();
			Throwable failure = started.getStartupFailure();
			FailureAnalysis analysis = analyze(failure);
			assertThat(analysis).as("a FailureAnalyzer for %s", failure).isNotNull();
			for (String fragment : fragments) {
				assertThat(analysis.getDescription() + analysis.getAction()).contains(fragment);
			}
			Throwable cause = failure;
			while (cause != null && !type.isInstance(cause)) {
				cause = cause.getCause();
			}
			found.set((cause != null) ? cause : failure);
		});
		Throwable cause = found.get();
		Throwable root = cause;
		while (root.getCause() != null) {
			root = root.getCause();
		}
		if (root != cause && type.isInstance(cause)) {
			return new CauseWithRoot(cause, root);
		}
		return cause;
	}

	private static final List<FailureAnalyzer> analyzers = SpringFactoriesLoader
		.forDefaultResourceLocation(BadInput.class.getClassLoader())
		.load(FailureAnalyzer.class, ArgumentResolver.of(Environment.class, new MockEnvironment()),
				SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> {
				}));

	private static FailureAnalysis analyze(Throwable failure) {
		for (FailureAnalyzer analyzer : analyzers) {
			FailureAnalysis analysis = analyzer.analyze(failure);
			if (analysis != null) {
				return analysis;
			}
		}

		return null;
	}

	/**
	 * One bad input: what to run, what it must throw (or return), and what the message
	 * must say.
	 */
	record Case(String name, Callable<Object> run, Class<?> type, String... fragments) {

		@Override
		public String toString() {
			return this.name;
		}

	}

	/** A logged warning, as the outcome of a case that must not fail. */
	record Warning(String message) {

		@Override
		public String toString() {
			return this.message;
		}

	}

	/** A start-up failure of the expected type, and what it came from. */
	static final class CauseWithRoot extends RuntimeException {

		private static final long serialVersionUID = 1L;

		CauseWithRoot(Throwable cause, Throwable root) {
			super(cause.getMessage() + " (root cause: " + root.getMessage() + ")", cause);
		}

	}

	@FunctionalInterface
	interface ThrowingFunction<T> {

		Object apply(T value) throws Exception;

	}

}
