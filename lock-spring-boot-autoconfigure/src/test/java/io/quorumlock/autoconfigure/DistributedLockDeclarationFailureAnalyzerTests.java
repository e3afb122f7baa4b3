package io.quorumlock.autoconfigure;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.quorumlock.aop.DistributedLockDeclarationException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DistributedLockDeclarationFailureAnalyzer} names the method and attribute and
 * says how to write it.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class DistributedLockDeclarationFailureAnalyzerTests {

	private final DistributedLockDeclarationFailureAnalyzer analyzer = new DistributedLockDeclarationFailureAnalyzer(
			null);

	@Test
	void badDurationIsExplained() {
		FailureAnalysis analysis = this.analyzer
			.analyze(new BeanCreationException("orderService", "failed", new DistributedLockDeclarationException(
					"OrderService.pay(Order)", "lease", "3x", "is not a duration")));
		assertThat(analysis.getDescription())
			.isEqualTo("The @DistributedLock annotation on OrderService.pay(Order) is invalid: lease \"3x\" is not a "
					+ "duration.");
		assertThat(analysis.getAction()).startsWith("Update the 'lease' attribute of @DistributedLock on "
				+ "OrderService.pay(Order): write a duration such as \"500ms\"");
	}

	@Test
	void badKeyIsExplained() {
		FailureAnalysis analysis = this.analyzer.analyze(new DistributedLockDeclarationException(
				"OrderService.pay(Order)", "key", "#order.", "is not a valid SpEL expression"));
		assertThat(analysis.getAction()).contains("SpEL expression over the method's parameters");
	}

	@Test
	void eachActionSaysWhatToChangeWhere() {
		assertThat(action("key", "@audit.id", "refers to bean 'audit', which does not exist"))
			.isEqualTo("Define the bean the key names, or correct the bean name in the 'key' attribute of "
					+ "@DistributedLock on OrderService.pay(Order).");
		assertThat(action("lease", "-1s", "must not be negative")).isEqualTo("Update the 'lease' attribute of "
				+ "@DistributedLock on OrderService.pay(Order): write a positive duration, or leave it empty for the "
				+ "configured default.");
		assertThat(action("holdAtMost", "1s",
				"is refused: holdAtMost 1000 ms is shorter than lease 30000 ms " + "(lease from configuration)"))
			.endsWith("write a holdAtMost not shorter than the lease, or shorten the lease.");
		assertThat(action("lease (from configuration)", "60000ms",
				"is longer than quorumlock.rejoin-delay (30000ms), " + "the restart guard in force: ..."))
			.startsWith("Raise quorumlock.rejoin-delay to at least this lease on every instance");
		assertThat(action("permits", "0", "must be at least 1")).contains("use permits = 1 for a plain lock");
	}

	private String action(String attribute, String value, String reason) {
		return this.analyzer
			.analyze(new DistributedLockDeclarationException("OrderService.pay(Order)", attribute, value, reason))
			.getAction();
	}

	@Test
	void otherFailuresAreNotAnalyzed() {
		assertThat(this.analyzer.analyze(new IllegalStateException("unrelated"))).isNull();
	}

}
