package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;

import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.mock.env.MockEnvironment;

import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.aop.DistributedLockDeclarationException;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every kind of bad input, one table: the engine builder, requests, configuration
 * properties, annotations, keys, and Redis servers that answer with an error (wrong key
 * type, authentication, ACL, out of memory, read-only replica). Each case names the
 * exception type (or, for an even number of nodes, the logged warning) and the fragments
 * its message must contain: the property, method or key, and the figures. Cases that run
 * against Redis also check the invariant that nothing is reported as acquired when it was
 * not and that no key is left behind.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BadInputIntegrationTests {

	static final String PASSWORD = "pw-9f3c-secret";

	/** Node 0: a plain master; node 1: made a replica of node 0 by the READONLY case. */
	@RegisterExtension
	static final RedisServers plain = RedisServers.start(2);

	@RegisterExtension
	static final RedisServers secured = RedisServers.builder().password(PASSWORD).build();

	private static final String CLOSED = "redis://127.0.0.1:1";

	/**
	 * For the cases that talk to Redis: a node timeout a loaded machine keeps, so that an
	 * error reply is never mistaken for silence.
	 */
	private static final java.util.function.Consumer<QuorumLockEngine.Builder> ROBUST = (builder) -> builder
		.nodeTimeout(Duration.ofMillis(500));

	private static final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, QuorumLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.rejoin-delay=0s");

	@ParameterizedTest(name = "{0}")
	@MethodSource("cases")
	void badInputIsRefusedWithOneClearMessage(Case badInput) throws Exception {
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

	static Stream<Arguments> cases() {
		List<Case> all = new ArrayList<>();
		engineBuilder(all);
		requests(all);
		properties(all);
		annotations(all);
		redisReplies(all);
		return all.stream().map((c) -> Arguments.of(Named.of(c.name(), c)));
	}

	// ---- the engine builder ----

	private static void engineBuilder(List<Case> all) {
		all.add(new Case("builder: port that is not a number",
				() -> QuorumLockEngine.builder().nodes("redis://host:notaport").build(), IllegalArgumentException.class,
				"nodes: 'redis://host:notaport' needs a host and a numeric port"));
		all.add(new Case("builder: duplicate node",
				() -> QuorumLockEngine.builder().nodes("redis://h:6390", "redis://H:6390/2").build(),
				IllegalArgumentException.class, "nodes: H:6390 is listed twice"));
		all.add(new Case("builder: unknown scheme", () -> QuorumLockEngine.builder().nodes("http://h:6379").build(),
				IllegalArgumentException.class,
				"nodes: 'http://h:6379' must start with redis:// or rediss://, not http://"));
		all.add(new Case("builder: port out of range",
				() -> QuorumLockEngine.builder().nodes("redis://h:70000").build(), IllegalArgumentException.class,
				"nodes: 'redis://h:70000' has port 70000, outside 1..65535"));
		all.add(new Case("builder: no node", () -> QuorumLockEngine.builder().build(), IllegalArgumentException.class,
				"nodes: at least one Redis node is required, got none"));
		all.add(new Case("builder: even number of nodes is a warning", BadInputIntegrationTests::evenNodes,
				Warning.class, "WARNING", "nodes: 2 nodes tolerate no more failures than 1",
				"an odd number of independent masters is recommended"));
		all.add(new Case("builder: zero node timeout",
				() -> QuorumLockEngine.builder().nodes(CLOSED).nodeTimeout(Duration.ZERO).build(),
				IllegalArgumentException.class, "nodeTimeout must be positive, was PT0S"));
		all.add(new Case("builder: drift factor 0.5",
				() -> QuorumLockEngine.builder().nodes(CLOSED).clockDriftFactor(0.5).build(),
				IllegalArgumentException.class, "clockDriftFactor must be in [0, 0.5), was 0.5"));
		all.add(new Case("builder: negative drift factor",
				() -> QuorumLockEngine.builder().nodes(CLOSED).clockDriftFactor(-0.01).build(),
				IllegalArgumentException.class, "clockDriftFactor must be in [0, 0.5), was -0.01"));
		all.add(new Case("builder: node timeout not below a third of the default lease",
				() -> QuorumLockEngine.builder()
					.nodes(CLOSED)
					.defaults(LockOptions.none().lease(Duration.ofMillis(150)))
					.build(),
				IllegalArgumentException.class,
				"defaults: lease 150 ms is too short for node timeout 50 ms: the node timeout must be below a third of every lease"));
		all.add(new Case("builder: node timeout not below a third of an instance lease",
				() -> QuorumLockEngine.builder()
					.nodes(CLOSED)
					.nodeTimeout(Duration.ofSeconds(1))
					.instance("orders", LockOptions.none().lease(Duration.ofSeconds(3)))
					.build(),
				IllegalArgumentException.class,
				"instance 'orders': lease 3000 ms is too short for node timeout 1000 ms: the node timeout must be below a third of every lease"));
		all.add(new Case("builder: default holdAtMost shorter than the lease",
				() -> QuorumLockEngine.builder()
					.nodes(CLOSED)
					.defaults(LockOptions.none().holdAtMost(Duration.ofSeconds(10)))
					.build(),
				IllegalArgumentException.class, "defaults: holdAtMost 10000 ms is shorter than lease 30000 ms"));
		all.add(new Case("builder: default holdAtLeast longer than an unrenewed lease",
				() -> QuorumLockEngine.builder()
					.nodes(CLOSED)
					.defaults(LockOptions.none().renew(false).holdAtLeast(Duration.ofSeconds(31)))
					.build(),
				IllegalArgumentException.class,
				"defaults: holdAtLeast 31000 ms is longer than the lease 30000 ms without renewal"));
		all.add(new Case("builder: zero max key length",
				() -> QuorumLockEngine.builder().nodes(CLOSED).maxKeyLength(0).build(), IllegalArgumentException.class,
				"maxKeyLength must be positive, was 0"));
	}

	/** Two live nodes: the engine starts, and warns once. */
	private static Object evenNodes() {
		Logger logger = Logger.getLogger(QuorumLockEngine.class.getName());
		List<LogRecord> records = new ArrayList<>();
		Handler capture = new Handler() {
			@Override
			public void publish(LogRecord record) {
				synchronized (records) {
					records.add(record);
				}
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}
		};
		logger.addHandler(capture);
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(plain.uris())
			.rejoinDelay(Duration.ZERO)
			.build()) {
			assertThat(engine.quorum()).isEqualTo(2);
		}
		finally {
			logger.removeHandler(capture);
		}
		synchronized (records) {
			return records.stream()
				.filter((r) -> r.getLevel().intValue() >= Level.WARNING.intValue())
				.map((r) -> new Warning(r.getLevel() + " " + r.getMessage()))
				.findFirst()
				.orElse(null);
		}
	}

	// ---- requests and keys ----

	private static void requests(List<Case> all) {
		all.add(new Case("request: negative lease", () -> LockRequest.of("k").lease(Duration.ofSeconds(-1)),
				IllegalArgumentException.class, "lease must be positive, was PT-1S"));
		all.add(new Case("request: zero lease", () -> LockRequest.of("k").lease(Duration.ZERO),
				IllegalArgumentException.class, "lease must be positive, was PT0S"));
		all.add(new Case("request: negative wait", () -> LockRequest.of("k").waitAtMost(Duration.ofMillis(-5)),
				IllegalArgumentException.class, "waitAtMost must not be negative, was PT-0.005S"));
		all.add(new Case("request: zero holdAtMost", () -> LockRequest.of("k").holdAtMost(Duration.ZERO),
				IllegalArgumentException.class, "holdAtMost must be positive, was PT0S"));
		all.add(new Case("request: negative holdAtLeast", () -> LockRequest.of("k").holdAtLeast(Duration.ofSeconds(-1)),
				IllegalArgumentException.class, "holdAtLeast must not be negative, was PT-1S"));
		all.add(new Case("request: null key", () -> LockRequest.of((String) null), LockKeyException.class,
				"lock key must not be null"));
		all.add(new Case("request: empty key", () -> LockRequest.of(""), LockKeyException.class,
				"lock key must not be empty"));
		all.add(new Case("request: duplicate keys", () -> LockRequest.of(List.of("a", "b", "a")),
				LockKeyException.class, "lock key 'a' appears twice in [a, b, a]"));
		all.add(new Case("request: null among keys", () -> LockRequest.of(Arrays.asList("a", null)),
				LockKeyException.class, "lock key must not be null in [a, null]"));
		all.add(new Case("request: empty collection of keys", () -> LockRequest.of(List.<String>of()),
				LockKeyException.class, "lock keys must not be an empty collection"));
		all.add(new Case("call: lease not above three node timeouts", () -> withEngine(
				(engine) -> engine.tryAcquire(LockRequest.of("short").name("orders").lease(Duration.ofMillis(150)))),
				IllegalArgumentException.class, "lock 'orders' key 'lock:orders:{short}'",
				"lease 150 ms is too short for node timeout 50 ms", "below a third of every lease"));
		all.add(new Case("call: holdAtMost shorter than the lease",
				() -> withEngine(
						(engine) -> engine.tryAcquire(LockRequest.of("held").holdAtMost(Duration.ofSeconds(1)))),
				IllegalArgumentException.class, "key 'lock:{held}'",
				"holdAtMost 1000 ms is shorter than lease 30000 ms"));
		all.add(new Case("call: holdAtLeast longer than an unrenewed lease",
				() -> withEngine((engine) -> engine
					.tryAcquire(LockRequest.of("job").name("report").renew(false).holdAtLeast(Duration.ofMinutes(1)))),
				IllegalArgumentException.class, "lock 'report' key 'lock:report:{job}'",
				"holdAtLeast 60000 ms is longer than the lease 30000 ms without renewal"));
		String longKey = "order-" + "x".repeat(594);
		all.add(new Case("call: key longer than the maximum",
				() -> withEngine((engine) -> engine.tryAcquire(LockRequest.of(longKey).name("orders"))),
				LockKeyException.class, "lock 'orders' key '" + longKey.substring(0, 32) + "...'",
				"is 600 characters long", "above the maximum of 512", "quorumlock.max-key-length"));
		all.add(new Case("call: one key of several longer than a custom maximum", () -> {
			try (QuorumLockEngine engine = engine(plain.uris().get(0), (b) -> b.maxKeyLength(8))) {
				return engine.tryAcquire(LockRequest.of(List.of("short", "rather-long")));
			}
		}, LockKeyException.class, "key 'rather-long...' is 11 characters long, above the maximum of 8"));
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
				List.of("quorumlock.nodes=" + CLOSED, "quorumlock.instances.orders.lease=150ms"),
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
		all.add(new Case("property: max-key-length applies at call time",
				() -> call(List.of("quorumlock.max-key-length=16"),
						(registry) -> registry.tryAcquire(LockRequest.of("customer-0123456789"))),
				LockKeyException.class, "key 'customer-0123456789...' is 19 characters long",
				"above the maximum of 16"));
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
		all.add(new Case("annotation: key that evaluates to null at call time",
				() -> call(List.of(), (registry) -> null, (context) -> context.getBean(KeyedService.class).run(null)),
				LockKeyException.class, "KeyedService.run(String)", "key \"#id\" evaluated to null", "did not run"));
		all.add(new Case("annotation: key that evaluates to an empty string at call time",
				() -> call(List.of(), (registry) -> null, (context) -> context.getBean(KeyedService.class).run("")),
				LockKeyException.class, "KeyedService.run(String)", "key \"#id\" evaluated to an empty string"));
		all.add(new Case("annotation: collection key with a duplicate at call time",
				() -> call(List.of(), (registry) -> null,
						(context) -> context.getBean(KeyedService.class).all(List.of("a", "b", "a"))),
				LockKeyException.class, "KeyedService.all(List)", "key \"#ids\"", "where 'a' appears twice"));
		all.add(new Case("annotation: collection key with a null at call time",
				() -> call(List.of(), (registry) -> null,
						(context) -> context.getBean(KeyedService.class).all(Arrays.asList("a", null))),
				LockKeyException.class, "KeyedService.all(List)", "key \"#ids\"", "which has a null element"));
	}

	// ---- Redis answers with an error ----

	private static void redisReplies(List<Case> all) {
		all.add(new Case("redis: lock key holds a hash (acquire)", () -> {
			RedisServer node = plain.node(0);
			node.call("HSET", "lock:{typed}", "field", "value");
			try (QuorumLockEngine engine = engine(node.uri(), ROBUST)) {
				assertThat(engine.tryAcquire(LockRequest.of("typed"))).isEmpty();
				engine.acquire(LockRequest.of("typed"));
				return null;
			}
			finally {
				assertThat(node.call("TYPE", "lock:{typed}")).isEqualTo("hash");
				assertThat(node.call("DBSIZE")).isEqualTo(1L);
			}
		}, LockNotAcquiredException.class, "key 'lock:{typed}'", "acquired 0 of 1 nodes, quorum 1"));
		all.add(new Case("redis: lock key turned into a hash while held (fencing, then release)", () -> {
			RedisServer node = plain.node(0);
			try (QuorumLockEngine engine = engine(node.uri(), ROBUST)) {
				Lease lease = engine.acquire(LockRequest.of("swapped").renew(false));
				swapToHash(node, "lock:{swapped}");
				try {
					return lease.fencingToken();
				}
				finally {
					lease.release(); // a no-op on the hash: it is not this lease's
					assertThat(node.call("TYPE", "lock:{swapped}")).isEqualTo("hash");
					assertThat(node.call("DBSIZE")).isEqualTo(1L);
				}
			}
		}, QuorumUnavailableException.class, "key 'lock:{swapped}'", "no fencing token", "0 of 1 nodes, quorum 1",
				"WRONGTYPE"));
		all.add(new Case("redis: fencing counter holds a hash", () -> {
			RedisServer node = plain.node(0);
			node.call("HSET", "lock:{fenced}:fence", "field", "value");
			try (QuorumLockEngine engine = engine(node.uri(), ROBUST)) {
				Lease lease = engine.acquire(LockRequest.of("fenced").renew(false));
				try {
					return lease.fencingToken();
				}
				finally {
					lease.release();
					assertThat(node.exists("lock:{fenced}")).isFalse();
					assertThat(node.call("DBSIZE")).isEqualTo(1L);
				}
			}
		}, QuorumUnavailableException.class, "key 'lock:{fenced}'", "incremented 0 of 1 nodes, quorum 1", "WRONGTYPE"));
		all.add(new Case("redis: lock key turned into a hash while renewed", () -> {
			RedisServer node = plain.node(0);
			try (QuorumLockEngine engine = engine(node.uri(), ROBUST)) {
				Lease lease = engine.acquire(LockRequest.of("renewed").lease(Duration.ofSeconds(3)).renew(true));
				swapToHash(node, "lock:{renewed}");
				await().atMost(Duration.ofSeconds(20)).until(() -> !lease.isValid());
				try {
					lease.release();
					return null;
				}
				finally {
					assertThat(node.call("TYPE", "lock:{renewed}")).isEqualTo("hash");
					assertThat(node.call("DBSIZE")).isEqualTo(1L);
				}
			}
		}, LeaseLostException.class, "key 'lock:{renewed}'", "renewal extended 0 of 1 nodes, quorum 1", "WRONGTYPE"));
		all.add(new Case("redis: no password for a node that requires one", () -> {
			RedisServer node = secured.node(0);
			return refused(node, node.uri());
		}, QuorumUnavailableException.class, "key 'lock:{guarded}'", "acquired 0 of 1 nodes, quorum 1",
				"127.0.0.1:" + secured.node(0).port() + ": not connected, last attempt: NOAUTH"));
		all.add(new Case("redis: wrong password", () -> {
			RedisServer node = secured.node(0);
			return refused(node, "redis://:wrong-" + PASSWORD + "@127.0.0.1:" + node.port());
		}, QuorumUnavailableException.class, "key 'lock:{guarded}'", "acquired 0 of 1 nodes, quorum 1",
				"127.0.0.1:" + secured.node(0).port() + ": not connected, last attempt: "
				// Lettuce 7 (Boot 4.1) reports the refused handshake as "Connection
				// closed prematurely", without Redis's WRONGPASS reply (open item)
						+ (RedisURI.class.getPackage().getImplementationVersion().startsWith("6.") ? "WRONGPASS"
								: "")));
		all.add(new Case("redis: ACL user without EVAL", () -> {
			RedisServer node = plain.node(0);
			node.call("ACL", "SETUSER", "noeval", "reset", "on", ">" + PASSWORD, "~*", "&*", "+@all", "-eval",
					"-evalsha");
			return refused(node, "redis://noeval:" + PASSWORD + "@127.0.0.1:" + node.port());
		}, QuorumUnavailableException.class, "key 'lock:{guarded}'", "acquired 0 of 1 nodes, quorum 1",
				"refuses grants, this user may not run the lock scripts: NOPERM"));
		all.add(new Case("redis: out of memory with noeviction", () -> {
			RedisServer node = plain.node(0);
			try {
				fill(node);
				return refused(node, node.uri());
			}
			finally {
				node.call("CONFIG", "SET", "maxmemory", "0");
			}
		}, QuorumUnavailableException.class, "key 'lock:{guarded}'", "acquired 0 of 1 nodes, quorum 1",
				"OOM command not allowed when used memory > 'maxmemory'"));
		all.add(new Case("redis: read-only replica given as a master", () -> {
			RedisServer replica = plain.node(1);
			replica.call("REPLICAOF", "127.0.0.1", Integer.toString(plain.node(0).port()));
			try {
				return refused(replica, replica.uri());
			}
			finally {
				replica.call("REPLICAOF", "NO", "ONE");
			}
		}, QuorumUnavailableException.class, "key 'lock:{guarded}'", "acquired 0 of 1 nodes, quorum 1",
				"READONLY You can't write against a read only replica"));
	}

	/**
	 * Try to lock {@code guarded} on a node that refuses: never granted, nothing left on
	 * the node; then fail the way {@code acquire} does.
	 */
	private static Object refused(RedisServer node, String uri) {
		long keysBefore = (Long) node.call("DBSIZE");
		try (QuorumLockEngine engine = engine(uri, ROBUST)) {
			assertThat(engine.tryAcquire(LockRequest.of("guarded"))).isEmpty();
			try {
				Lease lease = engine.acquire(LockRequest.of("guarded"));
				lease.release();
				throw new AssertionError("granted on a node that refuses: " + lease);
			}
			finally {
				assertThat(node.exists("lock:{guarded}")).isFalse();
				assertThat(node.call("DBSIZE")).isEqualTo(keysBefore);
			}
		}
	}

	private static void swapToHash(RedisServer node, String key) {
		node.call("EVAL", "redis.call('del', KEYS[1]); redis.call('hset', KEYS[1], 'field', 'value')", "1", key);
	}

	/** Cap the node's memory just above its use, then write until it says OOM. */
	private static void fill(RedisServer node) {
		node.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
		String info = (String) node.call("INFO", "memory");
		long used = info.lines()
			.filter((line) -> line.startsWith("used_memory:"))
			.mapToLong((line) -> Long.parseLong(line.substring("used_memory:".length()).trim()))
			.findFirst()
			.orElseThrow();
		node.call("CONFIG", "SET", "maxmemory", Long.toString(used + 256 * 1024));
		String value = "v".repeat(16 * 1024);
		for (int i = 0; i < 1000; i++) {
			try {
				node.call("SET", "filler:" + i, value);
			}
			catch (RuntimeException ex) {
				assertThat(ex).hasMessageContaining("OOM");
				// The refused write's own query buffer counted toward the limit; once it
				// is
				// freed the node is below it again, so set the limit under what is
				// stored.
				node.call("CONFIG", "SET", "maxmemory", Long.toString(used + 64 * 1024));
				return;
			}
		}
		throw new AssertionError("no OOM after 1000 writes of 16 KB under maxmemory " + (used + 256 * 1024));
	}

	// ---- helpers ----

	private static QuorumLockEngine engine(String uri,
			java.util.function.Consumer<QuorumLockEngine.Builder> customizer) {
		QuorumLockEngine.Builder builder = QuorumLockEngine.builder().nodes(uri);
		customizer.accept(builder);
		return builder.build();
	}

	private static Object withEngine(java.util.function.Function<QuorumLockEngine, Object> action) {
		try (QuorumLockEngine engine = engine(plain.uris().get(0), (b) -> {
		})) {
			return action.apply(engine);
		}
	}

	/** A context on node 0 with the {@link Keyed} service, running {@code action}. */
	private static Object call(List<String> properties,
			java.util.function.Function<DistributedLockRegistry, Object> action) throws Exception {
		return call(properties, action, (context) -> null);
	}

	private static Object call(List<String> properties,
			java.util.function.Function<DistributedLockRegistry, Object> action,
			ThrowingFunction<org.springframework.context.ApplicationContext> onContext) throws Exception {
		AtomicReference<Object> result = new AtomicReference<>();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		runner.withPropertyValues("quorumlock.nodes=" + plain.uris().get(0))
			.withPropertyValues(properties.toArray(String[]::new))
			.withUserConfiguration(Keyed.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				try {
					result.set(action.apply(context.getBean(DistributedLockRegistry.class)));
					Object more = onContext.apply(context);
					if (more != null) {
						result.set(more);
					}
				}
				catch (Throwable ex) {
					failure.set(ex);
				}
			});
		if (failure.get() != null) {
			throw (failure.get() instanceof Exception ex) ? ex : new IllegalStateException(failure.get());
		}
		return result.get();
	}

	private static Case startup(String name, Class<? extends Throwable> type, Object configuration,
			String... fragments) {
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
			context = context.withPropertyValues("quorumlock.nodes=" + CLOSED).withUserConfiguration(bean);
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
		.forDefaultResourceLocation(BadInputIntegrationTests.class.getClassLoader())
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

	// ---- annotated beans ----

	@Configuration(proxyBeanMethods = false)
	static class Keyed {

		@Bean
		KeyedService keyedService() {
			return new KeyedService();
		}

	}

	static class KeyedService {

		@DistributedLock(key = "#id")
		public String run(String id) {
			return "ran " + id;
		}

		@DistributedLock(key = "#ids")
		public String all(List<String> ids) {
			return "ran " + ids;
		}

	}

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
