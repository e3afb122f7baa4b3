package io.quorumlock;

import java.time.Duration;
import java.util.List;

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

	@Test
	void severalMastersDefaultToFiftyMillisecondsWhateverTheLeases() {
		assertThat(LockRules.defaultNodeTimeout(false, Duration.ofSeconds(3), List.of(Duration.ofSeconds(30))))
			.isEqualTo(Duration.ofMillis(50));
	}

	@Test
	void oneNodeDefaultsToASecondOrTheClientTimeout() {
		assertThat(LockRules.defaultNodeTimeout(true, null, List.of())).isEqualTo(Duration.ofSeconds(1));
		assertThat(LockRules.defaultNodeTimeout(true, null, List.of(Duration.ofSeconds(30))))
			.isEqualTo(Duration.ofSeconds(1));
		assertThat(LockRules.defaultNodeTimeout(true, Duration.ofSeconds(2), List.of(Duration.ofSeconds(30))))
			.isEqualTo(Duration.ofSeconds(2));
		assertThat(LockRules.defaultNodeTimeout(true, Duration.ZERO, List.of())).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void oneNodesDefaultFitsTheShortestLeaseAndEveryLeaseGiven() {
		List<Duration> leases = List.of(Duration.ofSeconds(30), Duration.ofMillis(800), Duration.ofSeconds(2));
		Duration timeout = LockRules.defaultNodeTimeout(true, null, leases);
		assertThat(timeout).isEqualTo(Duration.ofMillis(200));
		assertThat(leases).allSatisfy((lease) -> assertThat(LockRules.leaseProblem(lease, timeout)).isEmpty());
	}

	@Test
	void oneNodesDefaultNeverFallsBelowWhatFiftyMillisecondsAllows() {
		// a quarter of 160 ms is 40 ms; 50 ms already fits a 160 ms lease
		assertThat(LockRules.defaultNodeTimeout(true, null, List.of(Duration.ofMillis(160))))
			.isEqualTo(Duration.ofMillis(50));
		// a lease too short for 50 ms gets just under a third of itself, and fits
		Duration timeout = LockRules.defaultNodeTimeout(true, null, List.of(Duration.ofMillis(90)));
		assertThat(LockRules.leaseProblem(Duration.ofMillis(90), timeout)).isEmpty();
	}

}
