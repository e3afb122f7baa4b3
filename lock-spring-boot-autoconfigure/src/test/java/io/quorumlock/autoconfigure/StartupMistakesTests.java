package io.quorumlock.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;

import io.quorumlock.DistributedLock;
import io.quorumlock.aop.DistributedLockDeclarationException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mistakes that used to pass start-up and fail (or silently not lock) on every call now
 * stop it: a key naming nothing it can resolve, and an annotated method a proxy can never
 * intercept. No Redis runs here.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StartupMistakesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.REDIS, QuorumLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + closedPort());

	@Test
	void runWhenAConstantKeyIsUnquotedShouldFailWithTheQuotedKey() {
		this.runner.withUserConfiguration(UnquotedKeyConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			DistributedLockDeclarationException failure = cause(context.getStartupFailure());
			assertThat(failure).hasMessage("@DistributedLock on UnquotedKey.report(): key \"report-job\" refers to "
					+ "'report', which is no parameter, bean or root property (args, method, methodName, target, "
					+ "targetClass) and would fail on every call; for a constant key write it in single quotes: did "
					+ "you mean \"'report-job'\"?");
		});
	}

	@Test
	void runWhenAParameterLacksItsHashShouldFailNamingIt() {
		this.runner.withUserConfiguration(BareParameterConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(cause(context.getStartupFailure()).getMessage())
				.endsWith("did you mean \"#orderId\" (the parameter)?");
		});
	}

	@Test
	void runWhenAnAnnotatedMethodIsPrivateShouldFail() {
		this.runner.withUserConfiguration(PrivateMethodConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			DistributedLockDeclarationException failure = cause(context.getStartupFailure());
			assertThat(failure).hasMessageContaining("PrivateMethod.settle(String): modifier \"private\" makes the "
					+ "method impossible to lock: a Spring proxy never intercepts it");
			FailureAnalysis analysis = new DistributedLockDeclarationFailureAnalyzer(null)
				.analyze(context.getStartupFailure());
			assertThat(analysis.getAction()).contains("call it on the injected bean, not on 'this'");
		});
	}

	@Test
	void runWhenAnAnnotatedMethodIsFinalShouldFail() {
		this.runner.withUserConfiguration(FinalMethodConfiguration.class)
			.run((context) -> assertThat(cause(context.getStartupFailure()))
				.hasMessageContaining("modifier \"final\""));
	}

	@Test
	void runWhenSeveralAnnotatedMethodsAreBadShouldNameThemAllAtOnce() {
		this.runner.withUserConfiguration(PrivateMethodConfiguration.class, FinalMethodConfiguration.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new DistributedLockDeclarationFailureAnalyzer(null)
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).startsWith("2 @DistributedLock declarations are invalid:")
					.contains("FinalMethod.settle(String) is invalid: modifier \"final\"")
					.contains("PrivateMethod.settle(String) is invalid: modifier \"private\"");
				assertThat(analysis.getAction()).contains("Make FinalMethod.settle(String) public")
					.contains("Make PrivateMethod.settle(String) public");
			});
	}

	@Test
	void runWhenTheNodeTimeoutIsTooLongForAnAnnotatedLeaseShouldBlameTheNodeTimeout() {
		String[] properties = { "quorumlock.node-timeout=2s" };
		this.runner.withPropertyValues(properties)
			.withUserConfiguration(ShortLeaseConfiguration.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				StandardEnvironment environment = new StandardEnvironment();
				TestPropertyValues.of(properties).applyTo(environment);
				FailureAnalysis analysis = new DistributedLockDeclarationFailureAnalyzer(environment)
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).startsWith("Invalid quorumlock configuration: "
						+ "'quorumlock.node-timeout' is '2s' (from \"quorumlock.node-timeout\" from property source \"test\"), too "
						+ "long for the lease of \"5s\" on ShortLease.hold(String)")
					.doesNotContain("annotation on");
				assertThat(analysis.getAction())
					.startsWith("Lower quorumlock.node-timeout (in \"quorumlock.node-timeout\" from property source "
							+ "\"test\") below 1667ms (a third of the shortest lease, \"5s\" on ShortLease.hold(String))")
					.doesNotStartWith("Update the 'lease'");
			});
	}

	@Test
	void runWhenAnAnnotatedLeaseIsTooShortForTheDefaultNodeTimeoutShouldBlameTheLease() {
		// several masters: their default node timeout (50 ms) does not adapt to the
		// leases
		this.runner.withUserConfiguration(TinyLeaseConfiguration.class)
			.withPropertyValues("quorumlock.nodes[0]=redis://127.0.0.1:" + closedPort(),
					"quorumlock.nodes[1]=redis://127.0.0.1:" + closedPort(),
					"quorumlock.nodes[2]=redis://127.0.0.1:" + closedPort())
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new DistributedLockDeclarationFailureAnalyzer(new StandardEnvironment())
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).startsWith(
						"The @DistributedLock annotation on " + "TinyLease.hold(String) is invalid: lease \"100ms\"");
				assertThat(analysis.getAction()).isEqualTo("Update the 'lease' attribute of @DistributedLock on "
						+ "TinyLease.hold(String): lengthen the lease to more than 150ms, three times "
						+ "quorumlock.node-timeout (50ms).");
			});
	}

	@Test
	void runWhenKeysAreWellFormedShouldStart() {
		this.runner.withUserConfiguration(GoodKeysConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	private static DistributedLockDeclarationException cause(Throwable failure) {
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (t instanceof DistributedLockDeclarationException declaration) {
				return declaration;
			}
		}
		throw new AssertionError("no DistributedLockDeclarationException in " + failure, failure);
	}

	private static int closedPort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class UnquotedKeyConfiguration {

		@Bean
		UnquotedKey unquotedKey() {
			return new UnquotedKey();
		}

	}

	static class UnquotedKey {

		@DistributedLock(key = "report-job")
		public void report() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BareParameterConfiguration {

		@Bean
		BareParameter bareParameter() {
			return new BareParameter();
		}

	}

	static class BareParameter {

		@DistributedLock(key = "orderId")
		public void pay(String orderId) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PrivateMethodConfiguration {

		@Bean
		PrivateMethod privateMethod() {
			return new PrivateMethod();
		}

	}

	static class PrivateMethod {

		public void run(String id) {
			settle(id);
		}

		@DistributedLock(key = "#id")
		private void settle(String id) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FinalMethodConfiguration {

		@Bean
		FinalMethod finalMethod() {
			return new FinalMethod();
		}

	}

	static class FinalMethod {

		@DistributedLock(key = "#id")
		public final void settle(String id) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ShortLeaseConfiguration {

		@Bean
		ShortLease shortLease() {
			return new ShortLease();
		}

	}

	static class ShortLease {

		@DistributedLock(key = "#seat", lease = "5s")
		public void hold(String seat) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TinyLeaseConfiguration {

		@Bean
		TinyLease tinyLease() {
			return new TinyLease();
		}

	}

	static class TinyLease {

		@DistributedLock(key = "#seat", lease = "100ms")
		public void hold(String seat) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class GoodKeysConfiguration {

		@Bean
		GoodKeys goodKeys() {
			return new GoodKeys();
		}

	}

	static class GoodKeys {

		@DistributedLock(key = "'report-job'")
		public void report() {
		}

		@DistributedLock(key = "#order.trim().length() > 3 ? #order : 'short-' + #order")
		public void pay(String order) {
		}

		@DistributedLock(key = "methodName + ':' + #root.targetClass.simpleName + #ids.![#this + 'x'].size()")
		public void batch(java.util.List<String> ids) {
		}

	}

}
