package io.quorumlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.context.properties.bind.BindException;

import io.quorumlock.autoconfigure.BadInput.Case;

import static io.quorumlock.autoconfigure.BadInput.CLOSED;
import static io.quorumlock.autoconfigure.BadInput.PASSWORD;
import static io.quorumlock.autoconfigure.BadInput.startup;

/**
 * Bad {@code quorumlock.*} properties: each stops the start-up with one message naming
 * the property and its value (never a password), and a failure analysis that says the
 * same. No Redis: the start-up fails before the engine would connect.
 */
class PropertiesBadInputTests {

	@ParameterizedTest(name = "{0}")
	@MethodSource("cases")
	void badInputIsRefusedWithOneClearMessage(Case badInput) {
		BadInput.assertRefused(badInput);
	}

	static Stream<Arguments> cases() {
		List<Case> all = new ArrayList<>();
		properties(all);
		return BadInput.arguments(all);
	}

	// ---- configuration properties ----

	private static void properties(List<Case> all) {
		all.add(startup("property: node URI with a port that is not a number", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=redis://app:" + PASSWORD + "@127.0.0.1:notaport"), "quorumlock.nodes[0]",
				"redis://******@127.0.0.1:notaport", "needs a host and a numeric port"));
		all.add(startup("property: duplicate node", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=redis://127.0.0.1:7001,redis://LOCALHOST:7002,redis://127.0.0.1:7001/3"),
				"quorumlock.nodes[2]", "redis://127.0.0.1:7001/3",
				"127.0.0.1:7001 is already listed as quorumlock.nodes[0]"));
		all.add(startup("property: unknown scheme", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes[0]=ftp://127.0.0.1:7001"), "quorumlock.nodes[0]", "ftp://127.0.0.1:7001",
				"must start with redis:// or rediss://"));
		all.add(startup("property: negative lease", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.lease=-1s"), "quorumlock.lease", "-1s",
				"must be positive"));
		all.add(startup("property: zero node timeout", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.node-timeout=0ms"), "quorumlock.node-timeout", "0ms",
				"must be positive"));
		all.add(startup("property: negative wait", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.wait-at-most=-2s"), "quorumlock.wait-at-most", "-2s",
				"must not be negative"));
		all.add(startup("property: negative hold-at-most", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.hold-at-most=-5s"), "quorumlock.hold-at-most", "-5s",
				"must be positive"));
		all.add(startup("property: negative hold-at-least", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.hold-at-least=-5s"), "quorumlock.hold-at-least",
				"-5s", "must not be negative"));
		all.add(startup("property: hold-at-least longer than an unrenewed lease",
				InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.renew=false", "quorumlock.hold-at-least=1m"),
				"quorumlock.hold-at-least", "60s",
				"holdAtLeast 60000 ms is longer than the lease 30000 ms without renewal",
				"(the lease is quorumlock.lease)"));
		all.add(startup("property: instance hold-at-least longer than its unrenewed lease",
				InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.instances.report.lease=10s",
						"quorumlock.instances.report.renew=false", "quorumlock.instances.report.hold-at-least=15s"),
				"quorumlock.instances.report.hold-at-least", "15s",
				"holdAtLeast 15000 ms is longer than the lease 10000 ms without renewal",
				"(the lease is quorumlock.instances.report.lease)"));
		all.add(startup("property: unparseable lease", BindException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.lease=thirty seconds"), "quorumlock.lease",
				"thirty seconds"));
		all.add(startup("property: unparseable node timeout", BindException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.node-timeout=5 0ms"), "quorumlock.node-timeout",
				"5 0ms"));
		all.add(startup("property: zero lease", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.lease=0s"), "quorumlock.lease", "0ms",
				"must be positive"));
		all.add(startup("property: unparseable wait", BindException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.wait-at-most=soon"), "quorumlock.wait-at-most",
				"soon"));
		all.add(startup("property: unparseable hold-at-most", BindException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.hold-at-most=1 hour"), "quorumlock.hold-at-most",
				"1 hour"));
		all.add(startup("property: negative instance wait", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.instances.orders.wait-at-most=-1s"),
				"quorumlock.instances.orders.wait-at-most", "-1s", "must not be negative"));
		all.add(startup("property: node timeout not below a third of the lease",
				InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.node-timeout=10s"), "quorumlock.node-timeout", "10s",
				"lease 30000 ms is too short for node timeout 10000 ms", "(the lease is quorumlock.lease)"));
		all.add(startup("property: node timeout not below a third of an instance lease",
				InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.node-timeout=50ms",
						"quorumlock.instances.orders.lease=150ms"),
				"quorumlock.node-timeout", "50ms", "lease 150 ms is too short for node timeout 50 ms",
				"(the lease is quorumlock.instances.orders.lease)"));
		all.add(startup("property: drift factor 0.5", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.clock-drift-factor=0.5"),
				"quorumlock.clock-drift-factor", "0.5", "must be in [0, 0.5)"));
		all.add(startup("property: negative drift factor", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.clock-drift-factor=-0.1"),
				"quorumlock.clock-drift-factor", "-0.1", "must be in [0, 0.5)"));
		all.add(startup("property: hold-at-most shorter than the lease", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.instances.orders.hold-at-most=2s"),
				"quorumlock.instances.orders.hold-at-most", "2s", "holdAtMost 2000 ms is shorter than lease 30000 ms",
				"(the lease is quorumlock.lease)"));
		all.add(startup("property: zero max key length", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.max-key-length=0"), "quorumlock.max-key-length", "0",
				"must be positive"));
		all.add(startup("property: SSL bundle that does not exist", InvalidQuorumLockPropertyException.class,
				List.of("quorumlock.nodes=rediss://127.0.0.1:1", "quorumlock.ssl.bundle=redis-ca"),
				"quorumlock.ssl.bundle", "redis-ca", "no SSL bundle of that name", "spring.ssl.bundle.pem.redis-ca"));
	}

}
