package io.quorumlock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The restart guard and commands in flight at a restart: Lettuce re-sends, after it
 * reconnects, the commands that were in flight when a connection dropped. A
 * {@code SET NX} sent to a server that then restarts lands on the new, empty process and
 * answers OK; had it counted, two majorities of restarted nodes would grant a held lock
 * twice. An answer votes only if it came back on the connection the command went out on,
 * from a node allowed to vote when it answers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InFlightRestartIntegrationTests {

	/** Generous, so that a kill, a restart and a reconnect fit in one round. */
	private static final Duration NODE_TIMEOUT = Duration.ofSeconds(2);

	/** The lease and the restart guard. */
	private static final Duration LEASE = Duration.ofSeconds(8);

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final String key = "k" + UUID.randomUUID();

	@AfterEach
	void resume() {
		redis.nodes().forEach(RedisServer::resume);
	}

	private static QuorumLockEngine engine() {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(NODE_TIMEOUT)
			.defaults(LockOptions.none().lease(LEASE))
			.rejoinDelay(LEASE)
			// one round: the test reads how that round's in-flight answers were refused
			// (a retry would meet the restarted masters held back by the guard instead)
			.retryBudget(Duration.ZERO)
			.build();
	}

	private LockRequest request() {
		return LockRequest.of(this.key).lease(LEASE).renew(false);
	}

	@Test
	void setNxInFlightWhileTwoNodesRestartEmptyDoesNotVote() {
		assumeThat(Path.of("/proc/net/tcp")).as("Linux socket table, to see a command in flight").exists();
		try (QuorumLockEngine a = engine(); QuorumLockEngine b = engine()) {
			// the fixture's servers are fresh too: wait until every one has been up for
			// the guard in both engines, so that A's lease is on all three
			await().atMost(Duration.ofSeconds(30))
				.until(() -> Stream.of(a, b)
					.allMatch((engine) -> engine.nodes().stream().allMatch(RegistryStatus.Node::countsTowardQuorum)));
			Lease first = a.acquire(request());
			String redisKey = "lock:{" + this.key + "}";
			await().atMost(Duration.ofSeconds(5))
				.until(() -> redis.nodes().stream().allMatch((node) -> node.exists(redisKey)));
			RedisServer zero = redis.node(0);
			RedisServer one = redis.node(1);
			long unreadZero = unreadBytes(zero.port());
			long unreadOne = unreadBytes(one.port());
			zero.pause();
			one.pause();
			// B's commands reach node 2 (which says no to the held key) and sit unread in
			// the frozen nodes' sockets. A server killed with unread input resets the
			// connection, which fails the oldest command in flight and no other: the
			// decoy goes first and takes that failure, B's SET NX on the held key is
			// sent again after the reconnect.
			CompletableFuture<Lease> decoy = b.acquireAsync(LockRequest.of(this.key + "-decoy").lease(LEASE));
			await().atMost(Duration.ofSeconds(5))
				.until(() -> unreadBytes(zero.port()) > unreadZero && unreadBytes(one.port()) > unreadOne);
			long decoyZero = unreadBytes(zero.port());
			long decoyOne = unreadBytes(one.port());
			CompletableFuture<Lease> second = CompletableFuture.supplyAsync(() -> b.acquire(request()));
			await().atMost(Duration.ofSeconds(5))
				.until(() -> unreadBytes(zero.port()) > decoyZero && unreadBytes(one.port()) > decoyOne);
			// both frozen servers die and come back empty on their ports well within
			// the node timeout; Lettuce reconnects and sends B's SET NX again
			zero.kill();
			one.kill();
			zero.restart();
			one.restart();
			assertThatThrownBy(second::join).as("a second grant while the first holder's lease is valid")
				.isInstanceOf(CompletionException.class)
				.cause()
				.isInstanceOf(QuorumUnavailableException.class)
				.hasMessageContaining("acquired 0 of 3 nodes, quorum 2, 1 answered")
				// each restarted node's answer is refused as a vote: either the engine
				// saw the
				// reconnect first, or the re-sent EVALSHA reached the new, empty process
				// first
				// and came back NOSCRIPT (scripts are loaded per connection epoch)
				.hasMessageMatching(notAVote(zero.port()))
				.hasMessageMatching(notAVote(one.port()));
			assertThat(first.isValid()).isTrue();
			first.release();
			decoy.thenAccept(Lease::release).exceptionally((error) -> null).join();
		}
	}

	/**
	 * A message in which the node on {@code port} answered without its answer being a
	 * vote.
	 */
	private static String notAVote(int port) {
		return "(?s).*:" + port + ": (reconnected while the command was in flight|NOSCRIPT).*";
	}

	/**
	 * Bytes received by the kernel and not yet read by the server, over the connections
	 * to {@code port}: a frozen server's share of the commands in flight to it.
	 */
	private static long unreadBytes(int port) {
		long total = 0;
		for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
			Path path = Path.of(table);
			if (!Files.exists(path)) {
				continue;
			}
			List<String> lines;
			try {
				lines = Files.readAllLines(path);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			for (String line : lines.subList(1, lines.size())) {
				// sl local_address rem_address st tx_queue:rx_queue ...
				String[] fields = line.trim().split("\\s+");
				String local = fields[1];
				int localPort = Integer.parseInt(local.substring(local.lastIndexOf(':') + 1), 16);
				if (localPort == port && "01".equals(fields[3])) {
					String queues = fields[4];
					total += Long.parseLong(queues.substring(queues.indexOf(':') + 1), 16);
				}
			}
		}
		return total;
	}

}
