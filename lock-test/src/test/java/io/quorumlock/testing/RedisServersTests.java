package io.quorumlock.testing;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestClassOrder;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link RedisServers} and {@link RedisServer}. Methods and nested classes run
 * in a fixed order because some tests leave a node killed or paused and the next one
 * checks that {@code beforeEach} repaired it.
 */
@Timeout(30)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
class RedisServersTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	/** Ports of the outer servers as seen by the first test; they must never change. */
	static final List<Integer> outerPorts = new ArrayList<>();

	static long killedPid = -1;

	static long pausedPid = -1;

	@Test
	@Order(1)
	void startsThreeServersOnDistinctFreePortsAnsweringPing() {
		assertThat(redis.size()).isEqualTo(3);
		assertThat(redis.nodes()).hasSize(3);
		Set<Integer> ports = new HashSet<>();
		for (RedisServer node : redis.nodes()) {
			assertThat(node.isRunning()).isTrue();
			assertThat(node.isPaused()).isFalse();
			assertThat(node.host()).isEqualTo("127.0.0.1");
			assertThat(node.port()).isNotEqualTo(6379).isGreaterThan(1024);
			assertThat(node.call("PING")).isEqualTo("PONG");
			assertThat((String) node.call("INFO", "server")).contains("process_id:" + node.pid() + "\r\n")
				.contains("tcp_port:" + node.port() + "\r\n");
			assertThat(ProcessHandle.of(node.pid())).hasValueSatisfying((h) -> assertThat(h.isAlive()).isTrue());
			ports.add(node.port());
			outerPorts.add(node.port());
		}
		assertThat(ports).hasSize(3);
		assertThat(redis.uris()).containsExactly("redis://127.0.0.1:" + redis.node(0).port(),
				"redis://127.0.0.1:" + redis.node(1).port(), "redis://127.0.0.1:" + redis.node(2).port());
		assertThat(redis.node(1).uri()).isEqualTo(redis.uris().get(1));
		assertThat(Files.isExecutable(redis.binary())).isTrue();
	}

	@Test
	@Order(2)
	void serversRunWithoutPersistenceBoundToLoopbackInTheirOwnTempDir() throws Exception {
		Set<Path> dirs = new HashSet<>();
		for (RedisServer node : redis.nodes()) {
			assertThat(node.call("CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
			assertThat(node.call("CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "no"));
			assertThat(node.call("CONFIG", "GET", "daemonize")).isEqualTo(List.of("daemonize", "no"));
			assertThat((List<?>) node.call("CONFIG", "GET", "bind")).element(1).asString().startsWith("127.0.0.1");
			@SuppressWarnings("unchecked")
			List<Object> dir = (List<Object>) node.call("CONFIG", "GET", "dir");
			assertThat(Path.of((String) dir.get(1))).isEqualTo(node.directory().toRealPath());
			assertThat(node.directory()).isDirectoryContaining("glob:**/redis-*.log");
			dirs.add(node.directory());
		}
		assertThat(dirs).hasSize(3);
	}

	@Test
	@Order(3)
	void killEndsTheProcessAndConnectionsAreRefused() {
		RedisServer node = redis.node(1);
		long pid = node.pid();
		node.kill();
		assertThat(node.isRunning()).isFalse();
		assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> node.call("PING"))
			.withCauseInstanceOf(ConnectException.class);
		assertThat(node.pid()).isEqualTo(pid);
		killedPid = pid;
	}

	@Test
	@Order(4)
	void beforeEachRestartedTheNodeKilledByThePreviousTest() {
		RedisServer node = redis.node(1);
		assertThat(killedPid).isPositive();
		assertThat(node.isRunning()).isTrue();
		assertThat(node.pid()).isNotEqualTo(killedPid);
		assertThat(node.port()).isEqualTo(outerPorts.get(1));
		assertThat(node.call("PING")).isEqualTo("PONG");
	}

	@Test
	@Order(5)
	void restartKeepsThePortAndStartsEmpty() {
		RedisServer node = redis.node(0);
		assertThat(node.call("SET", "survivor", "1")).isEqualTo("OK");
		assertThat(node.exists("survivor")).isTrue();
		long pid = node.pid();
		int port = node.port();
		node.restart();
		assertThat(node.port()).isEqualTo(port);
		assertThat(node.pid()).isNotEqualTo(pid);
		assertThat(node.isRunning()).isTrue();
		assertThat(node.call("PING")).isEqualTo("PONG");
		assertThat(node.exists("survivor")).isFalse();
		assertThat(node.call("DBSIZE")).isEqualTo(0L);
		// restart of a killed node works too
		node.kill();
		node.restart();
		assertThat(node.port()).isEqualTo(port);
		assertThat(node.call("PING")).isEqualTo("PONG");
	}

	@Test
	@Order(6)
	void pauseStopsAnswersAndResumeBringsThemBack() {
		RedisServer node = redis.node(2);
		node.call("SET", "k", "v");
		node.pause();
		assertThat(node.isPaused()).isTrue();
		assertThat(node.isRunning()).isTrue();
		assertThatExceptionOfType(UncheckedIOException.class)
			.isThrownBy(() -> node.call(Duration.ofMillis(300), "PING"))
			.withCauseInstanceOf(SocketTimeoutException.class);
		node.resume();
		assertThat(node.isPaused()).isFalse();
		assertThat(node.call("PING")).isEqualTo("PONG");
		assertThat(node.get("k")).isEqualTo("v");
	}

	@Test
	@Order(7)
	void leavesDataAPausedNodeAndAKilledNodeBehind() {
		for (RedisServer node : redis.nodes()) {
			node.call("SET", "leftover", "x");
		}
		pausedPid = redis.node(2).pid();
		redis.node(2).pause();
		killedPid = redis.node(0).pid();
		redis.node(0).kill();
	}

	@Test
	@Order(8)
	void beforeEachResumedRestartedAndFlushedEveryNode() {
		assertThat(redis.node(0).pid()).isNotEqualTo(killedPid);
		assertThat(redis.node(2).pid()).isEqualTo(pausedPid);
		for (int i = 0; i < redis.size(); i++) {
			RedisServer node = redis.node(i);
			assertThat(node.isRunning()).isTrue();
			assertThat(node.isPaused()).isFalse();
			assertThat(node.port()).isEqualTo(outerPorts.get(i));
			assertThat(node.call(Duration.ofMillis(500), "PING")).isEqualTo("PONG");
			assertThat(node.exists("leftover")).isFalse();
		}
	}

	@Test
	@Order(9)
	void callMapsRespRepliesToJavaTypes() {
		RedisServer node = redis.node(0);
		assertThat(node.call("SET", "s", "héllo wörld")).isEqualTo("OK");
		assertThat(node.get("s")).isEqualTo("héllo wörld");
		assertThat(node.get("missing")).isNull();
		assertThat(node.call("INCR", "n")).isEqualTo(1L);
		assertThat(node.call("SET", "empty", "")).isEqualTo("OK");
		assertThat(node.get("empty")).isEmpty();
		assertThat(node.call("MGET", "s", "missing", "n")).isEqualTo(Arrays.asList("héllo wörld", null, "1"));
		assertThat(node.call("LRANGE", "nolist", "0", "-1")).isEqualTo(List.of());
		assertThat(node.call("SET", "ttl", "v", "PX", "60000")).isEqualTo("OK");
		assertThat(node.pttl("ttl")).isBetween(1L, 60000L);
		assertThat(node.pttl("s")).isEqualTo(-1L);
		assertThat(node.pttl("missing")).isEqualTo(-2L);
		assertThat(node.call("EVAL", "return {1, 'two', {3}}", "0")).isEqualTo(List.of(1L, "two", List.of(3L)));
		assertThatExceptionOfType(RedisErrorReply.class).isThrownBy(() -> node.call("NOSUCHCOMMAND"))
			.withMessageStartingWith("ERR")
			.satisfies((ex) -> assertThat(ex.prefix()).isEqualTo("ERR"));
		assertThatExceptionOfType(RedisErrorReply.class).isThrownBy(() -> node.call("LPUSH", "s", "x"))
			.satisfies((ex) -> assertThat(ex.prefix()).isEqualTo("WRONGTYPE"));
		node.flushAll();
		assertThat(node.exists("s")).isFalse();
	}

	@Test
	@Order(10)
	void startAndCloseWorkWithoutJUnitAndDeleteTheTempDirs() {
		RedisServers servers = RedisServers.builder().nodes(2).args("--maxmemory", "1mb").build();
		assertThatIllegalStateException().isThrownBy(servers::nodes).withMessageContaining("not started");
		List<Long> pids = new ArrayList<>();
		List<Path> dirs = new ArrayList<>();
		try (RedisServers started = servers.start()) {
			assertThat(started.start()).isSameAs(started);
			for (RedisServer node : started.nodes()) {
				assertThat(node.call("PING")).isEqualTo("PONG");
				assertThat(node.call("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "1048576"));
				assertThat(outerPorts).doesNotContain(node.port());
				pids.add(node.pid());
				dirs.add(node.directory());
			}
		}
		for (int i = 0; i < pids.size(); i++) {
			assertThat(ProcessHandle.of(pids.get(i)).map(ProcessHandle::isAlive).orElse(false)).isFalse();
			assertThat(dirs.get(i)).doesNotExist();
		}
		assertThatIllegalStateException().isThrownBy(servers::uris);
	}

	@Test
	@Order(11)
	void aServerThatFailsToStartReportsTheTailOfItsLog() {
		RedisServers broken = RedisServers.builder().args("--no-such-directive", "1").build();
		assertThatIllegalStateException().isThrownBy(broken::start)
			.withMessageContaining("exited with code")
			.withMessageContaining("no-such-directive");
		assertThatIllegalStateException().isThrownBy(broken::nodes);
	}

	@Test
	@Order(12)
	void forcedEmbeddedBinaryStartsAndAnswersPing() throws Exception {
		RedisServers embedded = RedisServers.start(1);
		String previous = System.setProperty(RedisBinary.PROPERTY, "embedded");
		try {
			embedded.start();
		}
		finally {
			if (previous == null) {
				System.clearProperty(RedisBinary.PROPERTY);
			}
			else {
				System.setProperty(RedisBinary.PROPERTY, previous);
			}
		}
		try (embedded) {
			Path binary = embedded.binary();
			assertThat(binary.getParent().getFileName().toString()).startsWith("quorumlock-embedded-redis-");
			assertThat(binary.getFileName().toString()).startsWith("redis-server-")
				.endsWith(EmbeddedRedisBinary.platformSuffix());
			RedisServer node = embedded.node(0);
			assertThat(node.call("PING")).isEqualTo("PONG");
			String command = ProcessHandle.of(node.pid()).orElseThrow().info().command().orElseThrow();
			assertThat(Path.of(command).toRealPath()).isEqualTo(binary.toRealPath());
			assertThat(outerPorts).doesNotContain(node.port());
			node.restart();
			assertThat(node.call("PING")).isEqualTo("PONG");
		}
		assertThat(EmbeddedRedisBinary.path()).isSameAs(EmbeddedRedisBinary.path());
	}

	@Nested
	@Order(1)
	@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
	class NestedWithStaticField {

		@RegisterExtension
		static final RedisServers nestedRedis = RedisServers.builder().nodes(2).args("--maxmemory", "2mb").build();

		static final List<Long> pids = new ArrayList<>();

		static boolean startedBeforeAllMethods;

		@BeforeAll
		static void extensionBeforeAllRanFirst() {
			// extension beforeAll callbacks run before @BeforeAll methods: the servers
			// must be up already
			startedBeforeAllMethods = nestedRedis.nodes().stream().allMatch(RedisServer::isRunning);
			nestedRedis.nodes().forEach((node) -> pids.add(node.pid()));
		}

		@Test
		@Order(1)
		void staticFieldInNestedClassStartsItsOwnServers() {
			assertThat(startedBeforeAllMethods).isTrue();
			assertThat(nestedRedis.size()).isEqualTo(2);
			for (RedisServer node : nestedRedis.nodes()) {
				assertThat(node.call("PING")).isEqualTo("PONG");
				assertThat(node.call("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "2097152"));
				assertThat(outerPorts).doesNotContain(node.port());
			}
			nestedRedis.node(0).call("SET", "nested", "1");
			nestedRedis.node(1).kill();
			redis.node(0).call("SET", "outer", "1");
			redis.node(2).pause();
		}

		@Test
		@Order(2)
		void bothNestedAndInheritedOuterExtensionsResetBeforeEachTest() {
			assertThat(nestedRedis.node(1).isRunning()).isTrue();
			assertThat(nestedRedis.node(0).exists("nested")).isFalse();
			assertThat(redis.node(2).isPaused()).isFalse();
			assertThat(redis.node(0).exists("outer")).isFalse();
			assertThat(redis.nodes()).extracting(RedisServer::port).isEqualTo(outerPorts);
		}

	}

	@Nested
	@Order(2)
	class AfterNestedWithStaticField {

		@Test
		void nestedServersWereStoppedButOuterServersKeepRunning() {
			assertThat(NestedWithStaticField.pids).hasSize(2);
			for (long pid : NestedWithStaticField.pids) {
				assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
			}
			assertThatIllegalStateException().isThrownBy(NestedWithStaticField.nestedRedis::nodes);
			assertThat(redis.nodes()).extracting(RedisServer::port).isEqualTo(outerPorts);
			assertThat(redis.nodes()).allSatisfy((node) -> assertThat(node.call("PING")).isEqualTo("PONG"));
		}

	}

	@Nested
	@Order(3)
	@TestInstance(Lifecycle.PER_CLASS)
	@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
	class PerClassInstanceField {

		@RegisterExtension
		final RedisServers instanceRedis = RedisServers.start(1);

		static long firstPid = -1;

		static final List<Long> pids = new ArrayList<>();

		@BeforeAll
		void extensionBeforeAllRanFirst() {
			assertThat(instanceRedis.node(0).isRunning()).isTrue();
			firstPid = instanceRedis.node(0).pid();
		}

		@Test
		@Order(1)
		void instanceFieldServersRunForTheWholeClass() {
			assertThat(instanceRedis.node(0).pid()).isEqualTo(firstPid);
			assertThat(instanceRedis.node(0).call("PING")).isEqualTo("PONG");
			instanceRedis.node(0).kill();
		}

		@Test
		@Order(2)
		void beforeEachRestartedItOnTheSamePort() {
			assertThat(instanceRedis.node(0).isRunning()).isTrue();
			assertThat(instanceRedis.node(0).pid()).isNotEqualTo(firstPid);
			assertThat(instanceRedis.node(0).call("PING")).isEqualTo("PONG");
		}

		@AfterAll
		void rememberPids() {
			pids.add(firstPid);
			pids.add(instanceRedis.node(0).pid());
		}

	}

	@Nested
	@Order(4)
	class AfterPerClassInstanceField {

		@Test
		void perClassServersWereStopped() {
			assertThat(PerClassInstanceField.pids).hasSize(2);
			for (long pid : PerClassInstanceField.pids) {
				assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
			}
		}

	}

}
