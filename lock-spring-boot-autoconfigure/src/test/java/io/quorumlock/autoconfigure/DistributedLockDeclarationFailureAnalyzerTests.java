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

	private final DistributedLockDeclarationFailureAnalyzer analyzer = new DistributedLockDeclarationFailureAnalyzer();

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
	void otherFailuresAreNotAnalyzed() {
		assertThat(this.analyzer.analyze(new IllegalStateException("unrelated"))).isNull();
	}

}
