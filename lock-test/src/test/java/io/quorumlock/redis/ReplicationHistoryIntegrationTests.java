package io.quorumlock.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.redis.node.RedisNode;
import io.quorumlock.redis.node.Script;
import io.quorumlock.redis.node.ServerState;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Losses that keep the dataset marker, on real servers: a master is vetted by its
 * replication history, not by its process. Servers 0 to 2 are the masters (server 0
 * behind a proxy where an address fails over); server 3 is a replica that lags, promoted
 * behind an address or used to resync a master that then fails back. Every server keeps
 * an append-only file with {@code appendfsync always}, the setting under which a restart
 * that keeps every write votes again at once.
 * <p>
 * Each test holds a first lease on masters 0 and 1 (master 2 never has the key), then
 * brings about a loss of that key on master 0 that keeps the marker, and checks that a
 * second engine cannot take the key while the first lease lives: master 0 must not vote.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplicationHistoryIntegrationTests {

	private static final Duration GUARD = Duration.ofSeconds(60);

	private static final Duration LEASE = Duration.ofSeconds(40);

	@RegisterExtension
	static final RedisServers redis = RedisServers.builder()
		.nodes(4)
		.args("--appendonly", "yes", "--appendfsync", "always")
		.build();

	private final List<AutoCloseable> closing = new ArrayList<>();

	private String key;

	@BeforeEach
	void name() {
		this.key = "k" + UUID.randomUUID();
	}

	@AfterEach
	void detach() throws Exception {
		for (int i = this.closing.size() - 1; i >= 0; i--) {
			this.closing.get(i).close();
		}
		for (RedisServer server : redis.nodes()) {
			server.resume();
			server.call("REPLICAOF", "NO", "ONE");
		}
	}

	private <T extends AutoCloseable> T closing(T resource) {
		this.closing.add(resource);
		return resource;
	}

	private QuorumLockEngine engine(List<String> uris) {
		return closing(QuorumLockEngine.builder()
			.nodes(uris)
			.nodeTimeout(Duration.ofMillis(200))
			.defaults(LockOptions.none().lease(LEASE))
			.rejoinDelay(GUARD)
			// brand-new masters: marked at once rather than held back for the guard
			.freshMasterRunIds(redis.nodes().stream().map(ReplicationHistoryIntegrationTests::runId).toList())
			.build());
	}

	private static String runId(RedisServer server) {
		return ServerState.parseRunId(String.valueOf(server.call("INFO", "server")));
	}

	private static List<String> uris(String first) {
		return List.of(first, redis.node(1).uri(), redis.node(2).uri());
	}

	private static void replicate(RedisServer replica, RedisServer master) {
		replica.call("REPLICAOF", master.host(), Integer.toString(master.port()));
		await().atMost(Duration.ofSeconds(20))
			.until(() -> String.valueOf(replica.call("INFO", "replication")).contains("master_link_status:up")
					&& !String.valueOf(replica.call("INFO", "replication")).contains("master_sync_in_progress:1"));
	}

	private static void awaitVoting(QuorumLockEngine engine) {
		await().atMost(Duration.ofSeconds(20))
			.until(() -> engine.nodes().stream().allMatch(RegistryStatus.Node::countsTowardQuorum));
	}

	/**
	 * A lease on masters 0 and 1: master 2 answers that another holder has the key, whose
	 * short lease then ends, so that master 2 never has the first lease's key.
	 */
	private Lease firstLease(QuorumLockEngine engine) {
		String lockKey = "lock:{" + this.key + "}";
		redis.node(2).call("SET", lockKey, "another", "PX", "1000");
		Lease lease = engine.acquire(LockRequest.of(this.key).renew(false));
		await().atMost(Duration.ofSeconds(5)).until(() -> !redis.node(2).exists(lockKey));
		return lease;
	}

	/**
	 * What a second engine gets for the first lease's key within a few seconds, once its
	 * first master has had the time to vote if it would.
	 */
	private Optional<Lease> secondTry(QuorumLockEngine second) {
		try {
			await().atMost(Duration.ofSeconds(4)).until(() -> second.nodes().get(0).countsTowardQuorum());
		}
		catch (ConditionTimeoutException heldBack) {
			// what the guard should do: try anyway
		}
		return second.tryAcquire(LockRequest.of(this.key).renew(false));
	}

	/**
	 * A master demoted to a replica of a server that lags it, resynced from it (losing
	 * the keys written since), then promoted again keeps its process and receives its own
	 * marker back: its replication history changed, so it is held back.
	 */
	@Test
	void aMasterResyncedFromALaggingReplicaAndFailedBackIsHeldBack() {
		RedisServer master = redis.node(0);
		RedisServer lagging = redis.node(3);
		QuorumLockEngine first = engine(uris(master.uri()));
		awaitVoting(first);
		replicate(lagging, master);
		lagging.call("REPLICAOF", "NO", "ONE"); // lags from now on
		Lease held = firstLease(first);
		assertThat(lagging.exists("lock:{" + this.key + "}")).isFalse();
		replicate(master, lagging); // a full resync: the key is gone, the marker kept
		master.call("REPLICAOF", "NO", "ONE"); // failed back
		assertThat(master.exists("lock:{" + this.key + "}")).isFalse();
		QuorumLockEngine second = engine(uris(master.uri()));
		Optional<Lease> twice = secondTry(second);
		assertThat(held.isValid()).isTrue();
		assertThat(twice).as("a second holder while the first lease lives").isEmpty();
		assertThat(second.nodes().get(0).lastError()).contains("held back by the restart guard");
	}

	/**
	 * A replica that lagged, promoted behind an address, is held back; restarted from its
	 * append-only file during the hold-back (a new process, and no sign left in its
	 * {@code INFO} that it was promoted), it is still held back: the suspicion is
	 * recorded on the master itself.
	 */
	@Test
	void aPromotedReplicaRestartedFromItsAppendOnlyFileDuringItsHoldBackIsStillHeldBack() throws IOException {
		RedisServer master = redis.node(0);
		RedisServer lagging = redis.node(3);
		SwitchingProxy address = closing(new SwitchingProxy(master));
		QuorumLockEngine first = engine(uris(address.uri()));
		awaitVoting(first);
		replicate(lagging, master);
		lagging.call("REPLICAOF", "NO", "ONE");
		Lease held = firstLease(first);
		address.switchTo(lagging, false);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> String.valueOf(first.nodes().get(0).lastError())
				.contains("held back by the restart guard for another"));
		lagging.restart(); // from its append-only file, fsync always
		assertThat(lagging.exists("lock:{quorumlock:marker}")).isTrue();
		QuorumLockEngine second = engine(uris(address.uri()));
		Optional<Lease> twice = secondTry(second);
		assertThat(held.isValid()).isTrue();
		assertThat(twice).as("a second holder while the first lease lives").isEmpty();
	}

	/**
	 * A failover behind a proxy that keeps the client's connection open: no reconnect,
	 * and no NOSCRIPT either, since another client already loaded the same scripts on the
	 * promoted replica. Its first grant is refused inside the granting script.
	 */
	@Test
	void aFailoverBehindAConnectionKeepingProxyIsRefusedBeforeTheNewServerVotes() throws IOException {
		RedisServer master = redis.node(0);
		RedisServer lagging = redis.node(3);
		SwitchingProxy address = closing(new SwitchingProxy(master));
		QuorumLockEngine first = engine(uris(address.uri()));
		QuorumLockEngine second = engine(uris(address.uri()));
		awaitVoting(first);
		awaitVoting(second);
		replicate(lagging, master);
		lagging.call("REPLICAOF", "NO", "ONE");
		for (Script script : RedisNode.SCRIPTS) { // another client of the library
			lagging.call("SCRIPT", "LOAD", script.text());
		}
		Lease held = firstLease(first);
		address.switchTo(lagging, true);
		Optional<Lease> twice = second.tryAcquire(LockRequest.of(this.key).renew(false));
		assertThat(held.isValid()).isTrue();
		assertThat(twice).as("a second holder while the first lease lives").isEmpty();
		// and it stays held back once seen
		assertThat(secondTry(second)).isEmpty();
	}

	/**
	 * The window only the marker check inside the granting script closes: a master
	 * flushed after the engine's last read of it and before its next, with a grant on the
	 * way. The engine still trusts both flushed masters; their scripts refuse.
	 */
	@Test
	void aFlushBetweenTwoStateReadsIsRefusedByTheGrantingScript() {
		QuorumLockEngine first = engine(uris(redis.node(0).uri()));
		QuorumLockEngine second = engine(uris(redis.node(0).uri()));
		awaitVoting(first);
		awaitVoting(second);
		Lease held = first.acquire(LockRequest.of(this.key).renew(false));
		redis.node(0).flushAll();
		redis.node(1).flushAll();
		Optional<Lease> twice;
		try {
			twice = second.tryAcquire(LockRequest.of(this.key).renew(false));
		}
		catch (QuorumUnavailableException refused) {
			twice = Optional.empty(); // the flushed masters refused in their scripts
		}
		assertThat(held.isValid()).isTrue();
		assertThat(twice).as("a second holder while the first lease lives").isEmpty();
	}

}
