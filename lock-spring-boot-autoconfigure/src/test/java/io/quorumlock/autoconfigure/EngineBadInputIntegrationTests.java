package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;

import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.autoconfigure.BadInput.Case;
import io.quorumlock.autoconfigure.BadInput.Warning;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static io.quorumlock.autoconfigure.BadInput.CLOSED;
import static io.quorumlock.autoconfigure.BadInput.PASSWORD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Bad input to the engine, below Spring: the builder, requests, the per-call rules, and
 * Redis servers that answer with an error (wrong key type, authentication, ACL, out of
 * memory, read-only replica). Each case names the exception type (or, for an even number
 * of nodes, the logged warning) and the fragments its message must contain. Cases that
 * run against Redis also check that nothing is reported as acquired when it was not and
 * that no key is left behind.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EngineBadInputIntegrationTests {

	/** Node 0: a plain master; node 1: made a replica of node 0 by the READONLY case. */
	@RegisterExtension
	static final RedisServers plain = RedisServers.start(2);

	@RegisterExtension
	static final RedisServers secured = RedisServers.builder().password(PASSWORD).build();

	/**
	 * For the cases that talk to Redis: a node timeout a loaded machine keeps, so that an
	 * error reply is never mistaken for silence.
	 */
	private static final java.util.function.Consumer<QuorumLockEngine.Builder> ROBUST = (builder) -> builder
		.nodeTimeout(Duration.ofMillis(500));

	@ParameterizedTest(name = "{0}")
	@MethodSource("cases")
	void badInputIsRefusedWithOneClearMessage(Case badInput) {
		BadInput.assertRefused(badInput);
	}

	static Stream<Arguments> cases() {
		List<Case> all = new ArrayList<>();
		engineBuilder(all);
		requests(all);
		calls(all);
		redisReplies(all);
		return BadInput.arguments(all);
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
		all.add(new Case("builder: even number of nodes is a warning", EngineBadInputIntegrationTests::evenNodes,
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
		// the engine's settings log it, under their own (package-private) class's name
		Logger logger = Logger.getLogger("io.quorumlock.redis.EngineSettings");
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
	}

	// ---- the per-call rules ----

	private static void calls(List<Case> all) {
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
				// is freed the node is below it again, so set the limit under what is
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

}
