package io.quorumlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.quorumlock.DistributedLock;
import io.quorumlock.aop.DistributedLockDeclarationException;
import io.quorumlock.autoconfigure.BadInput.Case;

import static io.quorumlock.autoconfigure.BadInput.startup;

/**
 * Bad {@code @DistributedLock} declarations: each stops the start-up with one message
 * naming the method, the attribute and its value, and a failure analysis that says the
 * same. No Redis: the declarations are checked once the singletons exist, before any
 * call.
 */
class AnnotationBadInputTests {

	@ParameterizedTest(name = "{0}")
	@MethodSource("cases")
	void badInputIsRefusedWithOneClearMessage(Case badInput) {
		BadInput.assertRefused(badInput);
	}

	static Stream<Arguments> cases() {
		List<Case> all = new ArrayList<>();
		annotations(all);
		return BadInput.arguments(all);
	}

	// ---- @DistributedLock declarations and calls ----

	private static void annotations(List<Case> all) {
		all.add(startup("annotation: SpEL syntax error", DistributedLockDeclarationException.class, BadSpel.class,
				"BadSpel.run(String)", "key \"#id.(\" is not a valid SpEL expression"));
		all.add(startup("annotation: SpEL refers to a missing parameter", DistributedLockDeclarationException.class,
				MissingParameter.class, "MissingParameter.run(String)",
				"key \"#orderId\" refers to #orderId, which is not a parameter (parameters: #id, #p0, #a0)"));
		all.add(startup("annotation: unparseable lease", DistributedLockDeclarationException.class,
				UnparseableLease.class, "UnparseableLease.run(String)", "lease \"30 secs\""));
		all.add(startup("annotation: unparseable holdAtMost", DistributedLockDeclarationException.class,
				UnparseableHold.class, "UnparseableHold.run(String)", "holdAtMost \"an hour\" is not a duration"));
		all.add(startup("annotation: negative wait", DistributedLockDeclarationException.class, NegativeWait.class,
				"NegativeWait.run(String)", "waitAtMost \"-1s\" must not be negative"));
		all.add(startup("annotation: zero lease", DistributedLockDeclarationException.class, ZeroLease.class,
				"ZeroLease.run(String)", "lease \"0s\" must be positive"));
		all.add(startup("annotation: holdAtMost shorter than the lease", DistributedLockDeclarationException.class,
				ShortHold.class, "ShortHold.run(String)",
				"holdAtMost \"5s\" is refused: holdAtMost 5000 ms is shorter than lease 10000 ms"));
		all.add(startup("annotation: node timeout not below a third of the lease",
				DistributedLockDeclarationException.class, LeaseBelowNodeTimeouts.class,
				"LeaseBelowNodeTimeouts.run(String)",
				"lease \"120ms\" is refused: lease 120 ms is too short for node timeout 50 ms"));
	}

	// ---- annotated beans ----

	static class BadSpel {

		@DistributedLock(key = "#id.(")
		public void run(String id) {
		}

	}

	static class MissingParameter {

		@DistributedLock(key = "#orderId")
		public void run(String id) {
		}

	}

	static class UnparseableLease {

		@DistributedLock(key = "#id", lease = "30 secs")
		public void run(String id) {
		}

	}

	static class UnparseableHold {

		@DistributedLock(key = "#id", holdAtMost = "an hour")
		public void run(String id) {
		}

	}

	static class NegativeWait {

		@DistributedLock(key = "#id", waitAtMost = "-1s")
		public void run(String id) {
		}

	}

	static class ZeroLease {

		@DistributedLock(key = "#id", lease = "0s")
		public void run(String id) {
		}

	}

	static class ShortHold {

		@DistributedLock(key = "#id", lease = "10s", holdAtMost = "5s")
		public void run(String id) {
		}

	}

	static class LeaseBelowNodeTimeouts {

		@DistributedLock(key = "#id", lease = "120ms")
		public void run(String id) {
		}

	}

}
