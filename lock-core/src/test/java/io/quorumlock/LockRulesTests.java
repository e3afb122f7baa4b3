package io.quorumlock;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Each timing rule holds on its boundary and breaks just past it, with one message.
 */
class LockRulesTests {

	private static final Duration NODE_TIMEOUT = Duration.ofMillis(50);

	@Test
	void leaseMustBeAboveThreeNodeTimeouts() {
		assertThat(LockRules.leaseProblem(Duration.ofMillis(151), NODE_TIMEOUT)).isEmpty();
		assertThat(LockRules.leaseProblem(Duration.ofMillis(150), NODE_TIMEOUT))
			.hasValue("lease 150 ms is too short for node timeout 50 ms: "
					+ "the node timeout must be below a third of every lease");
	}

	@Test
	void holdAtMostMustNotBeShorterThanTheLease() {
		assertThat(LockRules.holdAtMostProblem(Duration.ofSeconds(30), Duration.ofSeconds(30))).isEmpty();
		assertThat(LockRules.holdAtMostProblem(Duration.ofSeconds(10), Duration.ofSeconds(30)))
			.hasValue("holdAtMost 10000 ms is shorter than lease 30000 ms");
	}

	@Test
	void holdAtLeastMayExceedOnlyARenewedLease() {
		assertThat(LockRules.holdAtLeastProblem(Duration.ofSeconds(40), Duration.ofSeconds(30), true)).isEmpty();
		assertThat(LockRules.holdAtLeastProblem(Duration.ofSeconds(30), Duration.ofSeconds(30), false)).isEmpty();
		assertThat(LockRules.holdAtLeastProblem(Duration.ofSeconds(40), Duration.ofSeconds(30), false))
			.hasValueSatisfying((problem) -> assertThat(problem)
				.startsWith("holdAtLeast 40000 ms is longer than the lease 30000 ms"));
		assertThat(LockRules.holdAtLeastProblem(Duration.ofSeconds(-1), Duration.ofSeconds(30), true))
			.hasValueSatisfying((problem) -> assertThat(problem).contains("must not be negative"));
	}

	@Test
	void checkNamesWhereAndTheFirstRuleBroken() {
		LockOptions options = LockOptions.none().lease(Duration.ofSeconds(30)).renew(true);
		assertThatNoException().isThrownBy(() -> LockRules.check("defaults", options, NODE_TIMEOUT));
		assertThatIllegalArgumentException()
			.isThrownBy(
					() -> LockRules.check("instance 'orders'", options.holdAtMost(Duration.ofSeconds(1)), NODE_TIMEOUT))
			.withMessage("instance 'orders': holdAtMost 1000 ms is shorter than lease 30000 ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRules.check("defaults", options, Duration.ofSeconds(10)))
			.withMessageStartingWith("defaults: lease 30000 ms is too short for node timeout 10000 ms");
	}

}
