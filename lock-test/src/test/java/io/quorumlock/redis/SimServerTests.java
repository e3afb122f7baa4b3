package io.quorumlock.redis;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import io.quorumlock.redis.node.Script;
import io.quorumlock.redis.node.SharedScripts;

/**
 * {@link SimServer} and {@link SimLua} without a real server: expiry on the server's own
 * clock, the script cache across restarts, data kept or lost, eviction, replication (a
 * replica that lags, promotion, resync and failback), and the engine's own scripts run as
 * text ({@link SimServerIntegrationTests} holds the same sequences to a real
 * {@code redis-server}).
 */
class SimServerTests {

	private final SimLoop loop = new SimLoop(1, false);

	private final SimServer server = new SimServer("s0", this.loop, SimRun.WALL_EPOCH, 0, "noeviction", 1);

	private void advance(long millis) {
		this.loop.at(SimRun.millis(millis), null, () -> {
		});
		this.loop.runUntil(this.loop.now() + SimRun.millis(millis));
	}

	@Test
	void aKeyExpiresOnTheServersClockAndAStepBackKeepsItLonger() {
		assertThat(this.server.call("SET", "k", "v", "NX", "PX", "100")).isEqualTo(SimServer.OK);
		assertThat(this.server.call("SET", "k", "w", "NX", "PX", "100")).isNull();
		advance(60);
		this.server.stepClock(-SimRun.millis(50));
		advance(60);
		assertThat(this.server.call("GET", "k")).isEqualTo("v");
		advance(50);
		assertThat(this.server.call("GET", "k")).isNull();
		assertThat(this.server.pttl("k")).isEqualTo(-2);
	}

	@Test
	void aRestartForgetsTheScriptsAndKeepsTheDataOnlyWithAnAppendOnlyFile() {
		String sha = (String) this.server.call("SCRIPT", "LOAD", Script.RELEASE.text());
		assertThat(sha).isEqualTo(Script.RELEASE.sha1());
		this.server.call("SET", "k", "t", "PX", "10000");
		String runId = this.server.runId();
		Map<String, Object[]> appendOnly = this.server.snapshot();
		this.server.crash();
		this.server.restart(true, appendOnly);
		assertThat(this.server.runId()).isNotEqualTo(runId);
		assertThat(this.server.call("EVALSHA", sha, "1", "k", "t", "ch")).isEqualTo(SimServer.NOSCRIPT);
		assertThat(this.server.call("GET", "k")).isEqualTo("t");
		this.server.crash();
		this.server.restart(false, null);
		assertThat(this.server.call("GET", "k")).isNull();
	}

	@Test
	void theReleaseScriptDeletesOnlyItsOwnTokenAndPublishes() {
		String[] heard = new String[1];
		this.server.subscribe("ch", (channel, message) -> heard[0] = channel);
		this.server.call("SCRIPT", "LOAD", Script.RELEASE.text());
		this.server.call("SET", "k", "mine", "PX", "10000");
		assertThat(this.server.call("EVALSHA", Script.RELEASE.sha1(), "1", "k", "other", "ch")).isEqualTo(0L);
		assertThat(heard[0]).isNull();
		assertThat(this.server.call("EVALSHA", Script.RELEASE.sha1(), "1", "k", "mine", "ch")).isEqualTo(1L);
		assertThat(heard[0]).isEqualTo("ch");
		assertThat(this.server.call("EXISTS", "k")).isEqualTo(0L);
	}

	@Test
	void sharedHoldsKeepMillisecondExpiriesBeyondThirtyTwoBits() {
		this.server.call("SCRIPT", "LOAD", SharedScripts.ACQUIRE.text());
		this.server.call("SCRIPT", "LOAD", SharedScripts.RELEASE.text());
		assertThat(this.server.call("EVALSHA", SharedScripts.ACQUIRE.sha1(), "1", "k", "t1", "1000")).isEqualTo(1L);
		assertThat(this.server.call("EVALSHA", SharedScripts.ACQUIRE.sha1(), "1", "k", "t2", "2000")).isEqualTo(1L);
		long now = this.server.wallMillis();
		assertThat(this.server.call("HGET", "k", "s:t2")).isEqualTo(Long.toString(now + 2000));
		assertThat(this.server.call("EVALSHA", SharedScripts.RELEASE.sha1(), "1", "k", "t2", "ch")).isEqualTo(1L);
		// the other holder's expiry is the key's TTL again
		assertThat(this.server.pttl("k")).isEqualTo(1000);
		assertThat(this.server.call("SET", "k", "x", "NX", "PX", "100")).isNull();
	}

	@Test
	@SuppressWarnings("unchecked")
	void theGuardScriptsReadAndWriteTheDatasetMarker() {
		this.server.call("SCRIPT", "LOAD", Script.GUARD_READ.text());
		this.server.call("SCRIPT", "LOAD", Script.GUARD_PROMOTE.text());
		this.server.call("SCRIPT", "LOAD", Script.ACQUIRE.text());
		assertThat(this.server.call("EVALSHA", Script.ACQUIRE.sha1(), "2", "k", "m", "t", "1000")).isEqualTo(-1L);
		assertThat((List<Object>) this.server.call("EVALSHA", Script.GUARD_READ.sha1(), "3", "m", "p", "g", "n1",
				"5000", "e1", "who", "60000"))
			.startsWith(0L, "n1", 5000L, "", "", "", "", "master");
		assertThat(this.server.call("EVALSHA", Script.GUARD_PROMOTE.sha1(), "2", "m", "p", "n1", "id1", "5000", "r1"))
			.isEqualTo(List.of(1L, "id1"));
		assertThat(this.server.call("EVALSHA", Script.ACQUIRE.sha1(), "2", "k", "m", "t", "1000")).isEqualTo(1L);
		this.server.attach(new SimServer("s0r", this.loop, SimRun.WALL_EPOCH, 0, "noeviction", 1), 0);
		List<Object> read = (List<Object>) this.server.call("EVALSHA", Script.GUARD_READ.sha1(), "3", "m", "p", "g",
				"n2", "3000", "e2", "who", "60000");
		// found, its id, the longest guard, the process and replication id vetted, no
		// suspicion, replicated (the server has one replica), then the server's own
		assertThat(read).startsWith(1L, "id1", 5000L, "r1", read.get(8), "", "1", "master");
		// the longest live guard is the other engine's: who it is, and the longest of
		// the others'
		assertThat(read.subList(11, 13)).containsExactly("who", 5000L);
	}

	@Test
	void anEvictingServerDropsOnlyKeysWithATtl() {
		SimServer evicting = new SimServer("s1", this.loop, SimRun.WALL_EPOCH, 0, "volatile-lru", 1);
		evicting.call("SET", "lock", "t", "PX", "10000");
		evicting.call("HSET", "marker", "id", "x");
		assertThat(evicting.evict(5)).containsExactly("lock");
		assertThat(evicting.call("EXISTS", "marker")).isEqualTo(1L);
		assertThat(this.server.evict(5)).isEmpty();
		assertThat((String) evicting.call("INFO", "memory")).contains("maxmemory_policy:volatile-lru");
	}

	@Test
	void uptimeIsTheDifferenceOfTwoWallClockSecondsAsRedisComputesIt() {
		SimLoop late = new SimLoop(1, false);
		// started 0.9 s into a wall-clock second
		SimServer restarted = new SimServer("s", late, SimRun.WALL_EPOCH + SimRun.millis(900), 0, "noeviction", 0);
		late.at(SimRun.millis(200), null, () -> {
		});
		late.runUntil(SimRun.millis(200));
		assertThat((String) restarted.call("INFO", "server")).contains("uptime_in_seconds:1\r\n");
	}

	private static String replication(SimServer server, String field) {
		String info = (String) server.call("INFO", "replication");
		for (String line : info.split("\r\n")) {
			if (line.startsWith(field + ":")) {
				return line.substring(field.length() + 1);
			}
		}
		return null;
	}

	@Test
	void aReplicaGetsEachChangeItsLagLateAndLosesWhatHadNotReachedItWhenPromoted() {
		SimServer replica = new SimServer("s0r", this.loop, SimRun.WALL_EPOCH, 0, "noeviction", 1);
		this.server.call("SET", "before", "b");
		this.server.attach(replica, SimRun.millis(100));
		assertThat(replica.call("GET", "before")).isEqualTo("b");
		assertThat(replication(this.server, "connected_slaves")).isEqualTo("1");
		assertThat(replication(replica, "role")).isEqualTo("slave");
		assertThat(replication(replica, "master_replid")).isEqualTo(replication(this.server, "master_replid"));
		assertThat(replica.call("SET", "k", "v"))
			.isEqualTo(new SimServer.Err("READONLY You can't write against a read only replica."));
		this.server.call("SCRIPT", "LOAD", Script.RELEASE.text());
		this.server.call("SET", "early", "1", "PX", "10000");
		advance(60);
		this.server.call("SET", "late", "2", "PX", "10000");
		advance(60);
		String masterReplid = replication(this.server, "master_replid");
		assertThat(replica.promote()).isEqualTo(1);
		assertThat(replica.call("GET", "early")).isEqualTo("1");
		assertThat(replica.pttl("early")).isBetween(9800L, 9900L);
		assertThat(replica.call("GET", "late")).isNull();
		assertThat(replication(replica, "role")).isEqualTo("master");
		assertThat(replication(replica, "master_replid2")).isEqualTo(masterReplid);
		assertThat(replication(replica, "master_replid")).isNotEqualTo(masterReplid);
		assertThat(replication(this.server, "connected_slaves")).isEqualTo("0");
		assertThat(replica.call("SET", "k", "v")).isEqualTo(SimServer.OK);
	}

	@Test
	void scriptEffectsAndEvictionsReachTheReplica() {
		SimServer replica = new SimServer("s0r", this.loop, SimRun.WALL_EPOCH, 0, "noeviction", 1);
		this.server.attach(replica, 0);
		this.server.call("SCRIPT", "LOAD", Script.RELEASE.text());
		this.server.call("SET", "k", "mine", "PX", "10000");
		this.server.call("EVALSHA", Script.RELEASE.sha1(), "1", "k", "mine", "ch");
		this.server.call("SET", "v", "x", "PX", "10000");
		this.server.evictionPolicy("volatile-lru");
		assertThat(this.server.evict(1)).containsExactly("v");
		advance(1);
		assertThat(replica.promote()).isZero();
		assertThat(replica.liveKeys()).isEmpty();
	}

	@Test
	void aMasterResyncedFromItsLaggingReplicaTakesItsDataAndHistoryThenFailsBackWithAnotherHistory() {
		SimServer replica = new SimServer("s0r", this.loop, SimRun.WALL_EPOCH, 0, "noeviction", 1);
		this.server.attach(replica, SimRun.millis(100));
		this.server.call("SCRIPT", "LOAD", Script.RELEASE.text());
		String runId = this.server.runId();
		this.server.call("SET", "lost", "1", "PX", "10000");
		replica.promote();
		this.server.resyncFrom(replica, 0);
		assertThat(this.server.call("GET", "lost")).isNull();
		assertThat(replication(this.server, "role")).isEqualTo("slave");
		assertThat(replication(this.server, "master_replid")).isEqualTo(replication(replica, "master_replid"));
		String followed = replication(replica, "master_replid");
		this.server.promote();
		assertThat(this.server.runId()).isEqualTo(runId);
		assertThat(this.server.call("SCRIPT", "EXISTS", Script.RELEASE.sha1())).isEqualTo(List.of(1L));
		assertThat(replication(this.server, "role")).isEqualTo("master");
		assertThat(replication(this.server, "master_replid2")).isEqualTo(followed);
	}

	@Test
	void aMasterRestartedEmptyEmptiesItsReplica() {
		SimServer replica = new SimServer("s0r", this.loop, SimRun.WALL_EPOCH, 0, "noeviction", 1);
		this.server.attach(replica, SimRun.millis(100));
		this.server.call("SET", "k", "v", "PX", "10000");
		this.server.crash();
		this.server.restart(false, null);
		advance(200);
		replica.promote();
		assertThat(replica.liveKeys()).isEmpty();
	}

	@Test
	void aRestartForgetsTheSuspicionOnlyWhenThatProtectionIsUndone() {
		String marker = SimRun.PREFIX + "{quorumlock:marker}";
		this.server.call("HSET", marker, "id", "d", "suspect", "n r", "replicated", "1");
		Map<String, Object[]> appendOnly = this.server.snapshot();
		this.server.crash();
		this.server.restart(true, appendOnly);
		assertThat(this.server.call("HGET", marker, "suspect")).isEqualTo("n r");
		this.server.undone = SimTeeth.SUSPICION_ON_THE_MASTER;
		this.server.crash();
		this.server.restart(true, appendOnly);
		assertThat(this.server.call("HGETALL", marker)).isEqualTo(List.of("id", "d"));
	}

}
