package io.quorumlock.redis.node;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The restart guard's judgement of one master, without Redis: a fake server answers INFO
 * and the guard scripts as a real one would, on a fake clock and a fake epoch.
 */
class ServerStateTests {

	private static final long GUARD = TimeUnit.SECONDS.toNanos(10);

	private static final String INFO = "# Server\r\nrun_id:abc\r\nuptime_in_seconds:42\r\n";

	private static final String NO_EVICTION = "maxmemory:0\r\nmaxmemory_policy:noeviction\r\n";

	private static final String NOT_A_REPLICA = "master_replid2:0000000000000000000000000000000000000000\r\n";

	private final AtomicLong clock = new AtomicLong(1_000_000_000L);

	private final AtomicLong epoch = new AtomicLong(1);

	private final AtomicInteger ids = new AtomicInteger();

	private final FakeServer server = new FakeServer();

	private final AtomicBoolean anyMarked = new AtomicBoolean();

	private final GuardRecord guard = new GuardRecord(GUARD);

	private ServerState state(double drift, Set<String> fresh) {
		return new ServerState(new String[] { "marker", "pending" }, this.epoch::get, this.clock::get, this.guard,
				drift, fresh, this.anyMarked, () -> "id" + this.ids.incrementAndGet(), false);
	}

	private void read(ServerState state) {
		state.read(this.server, (nanos) -> {
		}).join();
	}

	@Test
	void aFieldIsReadFromTheLineThatStartsWithItsName() {
		String info = "# Server\r\nredis_version:7.0.15\r\nrun_id:abc\r\nuptime_in_seconds: 42 \r\n"
				+ "# Memory\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction\r\naof_enabled:1";
		assertThat(ServerState.field(info, "run_id:")).isEqualTo("abc");
		assertThat(ServerState.parseUptimeSeconds(info)).isEqualTo(42);
		// a name that is the start of another's is not taken from it
		assertThat(ServerState.field(info, "maxmemory:")).isEqualTo("0");
		assertThat(ServerState.field(info, "maxmemory_policy:")).isEqualTo("noeviction");
		// the last line, without a line end
		assertThat(ServerState.field(info, "aof_enabled:")).isEqualTo("1");
		// only at the start of a line
		assertThat(ServerState.field(info, "id:")).isNull();
		assertThat(ServerState.parseCount(info, "evicted_keys:")).isEqualTo(-1);
		assertThat(ServerState.field("", "run_id:")).isNull();
		assertThat(ServerState.field("run_id:\n", "run_id:")).isEmpty();
	}

	@Test
	void theServerProcessTheMarkerVettedIsTrustedAtOnce() {
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(state.runId()).isEqualTo("abc");
		assertThat(state.heldBackNanos()).isZero();
	}

	@Test
	void aRestartThatKeepsEveryWriteVotesAtOnceWhateverItsNewRunId() {
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		read(state);
		this.epoch.incrementAndGet(); // restarted from its append-only file, fsync always
		this.server.info = "run_id:other\r\nuptime_in_seconds:0\r\naof_enabled:1\r\n" + NOT_A_REPLICA;
		this.server.appendfsync = "always";
		assertThat(state.isTrusted()).as("unknown on the new connection until read").isFalse();
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(state.runId()).isEqualTo("other");
		assertThat(this.server.vetted).as("the new process recorded").isEqualTo("other");
	}

	@Test
	void aRestartFromASnapshotIsHeldBackForTheGuardThenVetted() {
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		read(state);
		// restarted from an RDB snapshot: the marker, not the last keys
		this.epoch.incrementAndGet();
		this.server.info = "run_id:other\r\nuptime_in_seconds:0\r\naof_enabled:0\r\n";
		read(state);
		assertThat(state.isTrusted()).isFalse();
		assertThat(state.heldBackReason()).contains("its replication history changed");
		this.clock.addAndGet(GUARD);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(this.server.vetted).isEqualTo("other");
	}

	@Test
	void anAppendOnlyFileWithoutFsyncAlwaysOrAPromotedReplicaIsHeldBack() {
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		this.server.info = "run_id:other\r\naof_enabled:1\r\n" + NOT_A_REPLICA;
		this.server.appendfsync = "everysec";
		read(state);
		assertThat(state.isTrusted()).isFalse();
		this.server.appendfsync = "always";
		this.server.info = "run_id:other\r\naof_enabled:1\r\nmaster_replid2:8f3c\r\n";
		read(state);
		assertThat(state.isTrusted()).as("a replica promoted may lag its former master").isFalse();
		this.server.info = "run_id:other\r\naof_enabled:1\r\n" + NOT_A_REPLICA;
		this.server.configRefused = true;
		read(state);
		assertThat(state.isTrusted()).as("fsync policy unknown: held back").isFalse();
	}

	@Test
	void aServerWithoutItsMarkerIsHeldBackForTheGuardOnTheEnginesOwnClockThenMarked() {
		ServerState state = state(0, Set.of());
		read(state);
		assertThat(state.isTrusted()).isFalse();
		assertThat(this.server.nonce).as("the loss named by a nonce").isNotNull();
		assertThat(state.heldBackNanos()).isEqualTo(GUARD);
		assertThat(state.heldBackReason()).contains("lost its data").contains("another 10 s");
		this.clock.addAndGet(GUARD - 1);
		read(state);
		assertThat(state.isTrusted()).isFalse();
		assertThat(this.server.marker).isNull();
		this.clock.addAndGet(1);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(this.server.marker).as("written once held back long enough").isNotNull();
		assertThat(this.server.nonce).isNull();
	}

	@Test
	void theHoldBackIsWidenedByTheClockDriftFactor() {
		ServerState state = state(0.01, Set.of());
		assertThat(state.holdBackNanos()).isGreaterThan(GUARD + GUARD / 100);
		read(state);
		this.clock.addAndGet(GUARD + GUARD / 100);
		read(state);
		assertThat(state.isTrusted()).isFalse();
		this.clock.addAndGet(GUARD / 50);
		read(state);
		assertThat(state.isTrusted()).isTrue();
	}

	@Test
	void theHoldBackGoesOnAcrossReconnectsWhileTheSameLossIsPending() {
		ServerState state = state(0, Set.of());
		read(state);
		this.clock.addAndGet(GUARD / 2);
		this.epoch.incrementAndGet(); // a network blip: the pending record is still there
		read(state);
		this.clock.addAndGet(GUARD / 2);
		read(state);
		assertThat(state.isTrusted()).isTrue();
	}

	@Test
	void aFurtherLossDuringTheHoldBackStartsItOver() {
		ServerState state = state(0, Set.of());
		read(state);
		this.clock.addAndGet(GUARD / 2);
		this.server.flush(); // lost again: the nonce is gone, a new one is made
		this.epoch.incrementAndGet();
		read(state);
		this.clock.addAndGet(GUARD / 2);
		read(state);
		assertThat(state.isTrusted()).as("only half a guard since the second loss").isFalse();
		this.clock.addAndGet(GUARD / 2);
		read(state);
		assertThat(state.isTrusted()).isTrue();
	}

	@Test
	void aPromotionRefusedBecauseTheDataWasLostAgainLeavesTheMasterHeldBack() {
		ServerState state = state(0, Set.of());
		read(state);
		this.clock.addAndGet(GUARD);
		this.server.loseBeforePromote = true;
		read(state);
		assertThat(state.isTrusted()).isFalse();
		assertThat(this.server.marker).isNull();
	}

	@Test
	void anotherDatasetBehindTheAddressIsHeldBackFromWhenItWasFirstSeen() {
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		read(state);
		// the address now reaches a server with a marker of its own
		this.epoch.incrementAndGet();
		this.server.mark("d2", "xyz");
		this.server.info = "run_id:xyz\r\n";
		read(state);
		assertThat(state.isTrusted()).isFalse();
		assertThat(state.heldBackReason()).contains("another dataset");
		this.clock.addAndGet(GUARD);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(this.server.marker).as("its marker is left as it is").isEqualTo("d2");
	}

	@Test
	void aLossWhileAnotherDatasetIsHeldBackStartsItsHoldBackOver() {
		// the simulation's seed 18707: this engine holds a dataset it does not know back
		// while other engines trust it and are granted on it; a lagging replica is
		// promoted behind the address and another engine records the suspicion. The
		// dataset's hold-back, begun before the promotion, must not vet the suspicion
		// with it.
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		read(state);
		this.epoch.incrementAndGet();
		this.server.mark("d2", "xyz");
		this.server.info = "run_id:xyz\r\n";
		read(state);
		this.clock.addAndGet(GUARD / 2);
		this.epoch.incrementAndGet(); // the replica promoted: same marker, another
										// history
		this.server.info = "run_id:promoted\r\nmaster_replid2:8f3c\r\n";
		this.server.suspect = "other-engine rpromoted";
		read(state);
		this.clock.addAndGet(GUARD / 2);
		read(state);
		assertThat(state.isTrusted()).as("half a guard since the suspicion was first seen").isFalse();
		assertThat(this.server.suspect).as("not vetted with the dataset").isEqualTo("other-engine rpromoted");
		this.clock.addAndGet(GUARD / 2);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(this.server.suspect).isNull();
	}

	@Test
	void aPromotionNobodyRecordedWhileAnotherDatasetIsHeldBackStartsItsHoldBackOver() {
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		read(state);
		this.epoch.incrementAndGet();
		this.server.mark("d2", "xyz");
		this.server.info = "run_id:xyz\r\n";
		read(state);
		this.clock.addAndGet(GUARD / 2);
		this.epoch.incrementAndGet();
		this.server.info = "run_id:promoted\r\nmaster_replid2:8f3c\r\n";
		read(state);
		this.clock.addAndGet(GUARD / 2);
		read(state);
		assertThat(state.isTrusted()).as("half a guard since the promotion was first seen").isFalse();
		this.clock.addAndGet(GUARD / 2);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(this.server.vettedReplid).isEqualTo("rpromoted");
	}

	@Test
	void aReplicaPromotedWithThePendingRecordOfALossIsHeldBackFromWhenItWasFirstSeen() {
		// the simulation's seed 13389: a master flushed, held back by this engine, then
		// marked by another whose hold-back ended first and granted on; its lagging
		// replica, promoted behind the address, has the pending record but neither the
		// marker nor those grants. This engine's hold-back of the loss, begun before,
		// must not end on it.
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		read(state);
		this.server.flush();
		read(state);
		this.clock.addAndGet(GUARD / 2);
		this.epoch.incrementAndGet();
		this.server.info = "run_id:promoted\r\nmaster_replid2:8f3c\r\n";
		read(state);
		this.clock.addAndGet(GUARD / 2);
		read(state);
		assertThat(state.isTrusted()).as("half a guard since the promoted replica was first seen").isFalse();
		assertThat(this.server.marker).isNull();
		this.clock.addAndGet(GUARD / 2);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(this.server.vettedReplid).isEqualTo("rpromoted");
	}

	@Test
	void aHoldBackEndsOnlyOnTheServerItHeldBack() {
		// the server switched behind an open connection between the read that ended the
		// hold-back and the write of the marker
		ServerState state = state(0, Set.of());
		read(state);
		this.clock.addAndGet(GUARD);
		this.server.beforeAnswer = () -> this.server.info = "run_id:other\r\n";
		read(state);
		assertThat(state.isTrusted()).isFalse();
		assertThat(this.server.marker).isNull();
	}

	@Test
	void anAddressBackOnAnEarlierServerIsHeldBack() {
		// a failover to a promoted copy, vetted and granted on; then the address flips
		// back to the former master, never demoted, whose marker still vets its own
		// history: it lacks what was granted on the copy
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		read(state);
		assertThat(state.isTrusted()).isTrue();
		this.epoch.incrementAndGet();
		this.server.info = "run_id:copy\r\nmaster_replid2:8f3c\r\n";
		read(state);
		this.clock.addAndGet(GUARD);
		read(state);
		assertThat(state.isTrusted()).as("the copy, vetted after its hold-back").isTrue();
		this.epoch.incrementAndGet();
		this.server.mark("d1", "abc");
		this.server.info = "run_id:abc\r\n";
		read(state);
		assertThat(state.isTrusted()).isFalse();
		assertThat(this.server.suspect).as("recorded on the master").isNotNull();
		this.clock.addAndGet(GUARD);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		read(state);
		assertThat(state.isTrusted()).as("vetted again, trusted from then on").isTrue();
	}

	@Test
	void aMarkerAnotherEngineWroteAtTheEndOfTheSameLossEndsThisEnginesHoldBackOnTime() {
		// two engines see a master restarted empty; the first to have seen the loss
		// writes the marker; the other goes on holding back from when it first saw the
		// loss, not from when it first saw the new marker
		ServerState first = state(0, Set.of());
		ServerState second = state(0, Set.of());
		this.server.mark("d1", "abc");
		read(first);
		read(second);
		this.epoch.incrementAndGet();
		this.server.flush();
		this.server.info = "run_id:restarted\r\n";
		read(first);
		this.clock.addAndGet(GUARD / 2);
		read(second);
		this.clock.addAndGet(GUARD / 2);
		read(first);
		assertThat(first.isTrusted()).isTrue();
		read(second);
		assertThat(second.isTrusted()).as("half a guard since it first saw the loss").isFalse();
		assertThat(second.heldBackReason()).contains("lost its data").contains("another 5 s");
		this.clock.addAndGet(GUARD / 2);
		read(second);
		assertThat(second.isTrusted()).as("a guard since it first saw the loss").isTrue();
	}

	@Test
	void aServerDeclaredBrandNewIsMarkedAtOnce() {
		ServerState state = state(0, Set.of("abc"));
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(this.server.marker).isNotNull();
	}

	@Test
	void everyMasterDeclaredBrandNewIsMarkedAtOnceNotOnlyTheFirst() {
		ServerState first = state(0, Set.of("abc"));
		read(first);
		assertThat(first.isTrusted()).isTrue();
		this.server.flush(); // the second master: its own empty dataset
		ServerState second = state(0, Set.of("abc"));
		read(second);
		assertThat(second.isTrusted()).as("a marker the engine wrote itself is no deployment in use").isTrue();
	}

	@Test
	void aServerDeclaredBrandNewButFlushedAfterItWasInUseIsHeldBack() {
		ServerState state = state(0, Set.of("abc"));
		read(state);
		assertThat(state.isTrusted()).isTrue();
		this.server.flush(); // the same process, its lock keys gone
		read(state);
		assertThat(state.isTrusted()).as("a deployment in use is not brand new").isFalse();
		// nor for an engine that never saw this master, once it saw another one marked
		this.anyMarked.set(true);
		ServerState other = new ServerState(new String[] { "marker", "pending" }, this.epoch::get, this.clock::get,
				this.guard, 0, Set.of("abc"), this.anyMarked, () -> "other-id", false);
		read(other);
		assertThat(other.isTrusted()).isFalse();
	}

	@Test
	void aLongerGuardRecordedByAnotherEngineIsAdopted() {
		ServerState state = state(0, Set.of());
		this.server.recordedGuard = TimeUnit.NANOSECONDS.toMillis(3 * GUARD);
		read(state);
		this.clock.addAndGet(GUARD);
		read(state);
		assertThat(state.isTrusted()).as("held back for the longest guard of these masters").isFalse();
		this.clock.addAndGet(2 * GUARD);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(this.server.promotedGuard).isEqualTo(TimeUnit.NANOSECONDS.toMillis(3 * GUARD));
	}

	@Test
	void aGuardRecordThatRunsOutIsNoLongerAdopted() {
		ServerState state = state(0, Set.of());
		this.server.recordedGuard = TimeUnit.NANOSECONDS.toMillis(3 * GUARD);
		read(state);
		assertThat(state.heldBackReason()).contains("(rejoin-delay 30 s, recorded by 4242@other-host)");
		this.clock.addAndGet(3 * GUARD);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		// the engine that recorded it stopped: its record ran out
		this.server.recordedGuard = 0;
		read(state);
		assertThat(this.guard.adoptedMillis()).as("this engine's own guard only")
			.isEqualTo(TimeUnit.NANOSECONDS.toMillis(GUARD));
	}

	@Test
	void aLossThatTookTheGuardRecordsWithItDoesNotLowerTheGuardAdopted() {
		// the simulation's seed 3576: another engine with a longer lease recorded its
		// guard; the master is flushed (its records with it) or another server is behind
		// the address, and this engine, whose own guard is shorter, must still hold it
		// back for the longer one
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		this.server.recordedGuard = TimeUnit.NANOSECONDS.toMillis(3 * GUARD);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		this.server.flush();
		read(state);
		assertThat(state.heldBackNanos()).isEqualTo(3 * GUARD);
		this.clock.addAndGet(GUARD);
		read(state);
		assertThat(state.isTrusted()).as("held back for the longer guard the flush erased").isFalse();
		this.clock.addAndGet(2 * GUARD);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		this.server.recordedGuard = TimeUnit.NANOSECONDS.toMillis(3 * GUARD); // recorded
																				// again
		read(state);
		// another server behind the address, with records of its own only
		this.server.recordedGuard = 0;
		this.epoch.incrementAndGet();
		this.server.mark("d2", "xyz");
		this.server.info = "run_id:xyz\r\n";
		read(state);
		this.clock.addAndGet(GUARD);
		read(state);
		assertThat(state.isTrusted()).as("held back for the longer guard read before the switch").isFalse();
		this.clock.addAndGet(2 * GUARD);
		read(state);
		assertThat(state.isTrusted()).isTrue();
	}

	@Test
	void aGuardKeptAcrossALossEndsWhenItsRecordCouldNoLongerLast() {
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		this.server.recordedGuard = TimeUnit.NANOSECONDS.toMillis(3 * GUARD);
		read(state);
		// flushed again and again: never read intact, and the other engine stopped
		for (int i = 0; i < 4; i++) {
			this.server.flush();
			this.clock.addAndGet(GUARD);
			read(state);
		}
		assertThat(this.guard.adoptedMillis()).as("30 s kept for its record's 30 s and margin, 40 s in all")
			.isEqualTo(TimeUnit.NANOSECONDS.toMillis(GUARD));
	}

	@Test
	void aGrantThatFoundNoMarkerHoldsTheMasterBackUntilReadAgain() {
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		read(state);
		state.dataLost(this.epoch.get() - 1); // an answer from an earlier connection
		assertThat(state.isTrusted()).isTrue();
		state.dataLost(this.epoch.get());
		assertThat(state.isTrusted()).isFalse();
	}

	@Test
	void anAnswerFromAnEarlierConnectionIsNotBelieved() {
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		this.server.beforeAnswer = this.epoch::incrementAndGet;
		read(state);
		assertThat(state.isKnown()).isFalse();
		assertThat(state.isTrusted()).isFalse();
	}

	@Test
	void aReadThatFailsLeavesTheStateUnknown() {
		ServerState state = state(0, Set.of());
		this.server.fail = true;
		read(state);
		assertThat(state.isKnown()).isFalse();
	}

	@Test
	void withoutAGuardTheDataIsTrustedOnceRead() {
		ServerState state = new ServerState(new String[] { "marker", "pending" }, this.epoch::get, this.clock::get,
				null, 0, Set.of(), new AtomicBoolean(), () -> "id", false);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(this.server.scripts).isEmpty();
	}

	@Test
	void anEvictionPolicyWithAMemoryLimitIsReported() {
		assertThat(ServerState.evicting(NO_EVICTION)).isNull();
		assertThat(ServerState.evicting("maxmemory:0\r\nmaxmemory_policy:volatile-lru\r\n")).isNull();
		assertThat(ServerState.evicting("maxmemory:1000000\r\nmaxmemory_policy:noeviction\r\n")).isNull();
		assertThat(ServerState.evicting("maxmemory:1000000\r\nmaxmemory_policy:volatile-lru\r\n"))
			.isEqualTo("volatile-lru");
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		this.server.info = INFO + "maxmemory:1000000\r\nmaxmemory_policy:allkeys-lru\r\n";
		read(state);
		assertThat(state.evicting()).isEqualTo("allkeys-lru");
	}

	@Test
	void aMasterThatStopsEvictingIsHeldBackForTheGuardFromWhenItWasLastSeenEvicting() {
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		read(state);
		assertThat(state.isTrusted()).isTrue();
		this.server.info = INFO + "maxmemory:1000000\r\nmaxmemory_policy:volatile-lru\r\n";
		read(state);
		assertThat(state.evicting()).isEqualTo("volatile-lru");
		assertThat(state.isTrusted()).isFalse();
		assertThat(this.server.marker).as("the loss recorded on the master, for every engine").isNull();
		this.clock.addAndGet(GUARD); // evicting all along
		read(state);
		assertThat(state.isTrusted()).as("still evicting: the hold-back starts over").isFalse();
		this.server.info = INFO + NO_EVICTION;
		this.clock.addAndGet(GUARD / 2);
		read(state);
		assertThat(state.evicting()).isNull();
		assertThat(state.isTrusted()).as("not evicting now, but held back from when last seen evicting").isFalse();
		assertThat(state.heldBackReason()).contains("evicted keys");
		this.clock.addAndGet(GUARD / 2);
		read(state);
		assertThat(state.isTrusted()).isTrue();
	}

	@Test
	void evictionsTheEngineDidNotSeeThePolicyForHoldTheMasterBack() {
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		this.server.info = INFO + NO_EVICTION + "evicted_keys:7\r\n";
		read(state);
		assertThat(state.isTrusted()).as("evictions before the first read are not dated").isTrue();
		// a policy set and reset between two reads, keys evicted meanwhile
		this.server.info = INFO + NO_EVICTION + "evicted_keys:9\r\n";
		read(state);
		assertThat(state.isTrusted()).isFalse();
		assertThat(this.server.marker).isNull();
		this.clock.addAndGet(GUARD);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		// another server process behind the address counts from zero: not an eviction
		this.epoch.incrementAndGet();
		this.server.info = "run_id:other\r\nuptime_in_seconds:1\r\n" + NO_EVICTION + "evicted_keys:0\r\n";
		this.server.mark(this.server.marker, "other");
		read(state);
		assertThat(state.isTrusted()).isTrue();
	}

	@Test
	void anEvictingMasterIsNotHeldBackWhenEvictingMastersAreAccepted() {
		ServerState state = new ServerState(new String[] { "marker", "pending" }, this.epoch::get, this.clock::get,
				this.guard, 0, Set.of(), this.anyMarked, () -> "id", true);
		this.server.mark("d1", "abc");
		this.server.info = INFO + "maxmemory:1000000\r\nmaxmemory_policy:volatile-lru\r\nevicted_keys:1\r\n";
		read(state);
		this.server.info = INFO + NO_EVICTION + "evicted_keys:5\r\n";
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(this.server.scripts).doesNotContain(Script.GUARD_EVICTED.name());
	}

	@Test
	void aPromotedReplicaIsSuspectedOnTheMasterItselfSoThatARestartDuringItsHoldBackDoesNotClearIt() {
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc"); // copied from its former master
		this.server.info = "run_id:other\r\naof_enabled:1\r\nmaster_replid2:8f3c\r\n";
		this.server.appendfsync = "always";
		read(state);
		assertThat(state.isTrusted()).isFalse();
		assertThat(this.server.suspect).as("recorded on the master").isNotNull();
		// restarted from its append-only file: a new process, and no promotion in sight
		this.epoch.incrementAndGet();
		this.server.info = "run_id:third\r\naof_enabled:1\r\n" + NOT_A_REPLICA;
		ServerState fresh = state(0, Set.of()); // an engine that never saw the promotion
		read(fresh);
		read(state);
		assertThat(fresh.isTrusted()).isFalse();
		assertThat(state.isTrusted()).isFalse();
		assertThat(fresh.heldBackReason()).contains("its replication history changed");
		this.clock.addAndGet(GUARD);
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(this.server.suspect).as("vetted again").isNull();
		assertThat(this.server.vettedReplid).isEqualTo("rthird");
	}

	@Test
	void theSameProcessWithANewHistoryAfterAPromotionIsHeldBack() {
		// a master resynced from a lagging replica, then failed back: its own run_id and
		// marker, another replication history
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		read(state);
		assertThat(state.isTrusted()).isTrue();
		this.server.info = "run_id:abc\r\nmaster_replid:fresh\r\nmaster_replid2:8f3c\r\n";
		read(state);
		assertThat(state.isTrusted()).isFalse();
		assertThat(state.heldBackReason()).contains("its replication history changed");
	}

	@Test
	void theSameProcessWithANewHistoryWithoutAPromotionIsVettedAtOnce() {
		// a master creates its replication backlog afresh, with a new id, when a first
		// replica attaches
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		read(state);
		this.server.info = "run_id:abc\r\nmaster_replid:fresh\r\n" + NOT_A_REPLICA;
		read(state);
		assertThat(state.isTrusted()).isTrue();
		assertThat(this.server.vettedReplid).isEqualTo("fresh");
	}

	@Test
	void aReplicaDoesNotVote() {
		ServerState state = state(0, Set.of());
		this.server.mark("d1", "abc");
		this.server.info = "run_id:abc\r\nrole:slave\r\n";
		read(state);
		assertThat(state.isTrusted()).isFalse();
		assertThat(state.heldBackReason()).contains("it is a replica");
		assertThat(this.server.scripts).doesNotContain(Script.GUARD_VET.name(), Script.GUARD_SUSPECT.name());
	}

	@Test
	void parsesTheServerSection() {
		assertThat(ServerState.parseRunId(INFO)).isEqualTo("abc");
		assertThat(ServerState.parseUptimeSeconds(INFO)).isEqualTo(42);
		assertThat(ServerState.parseRunId("run_id:\r\n")).isNull();
		assertThat(ServerState.parseUptimeSeconds("uptime_in_seconds:x\r\n")).isEqualTo(-1);
		assertThat(ServerState.parseUptimeSeconds("")).isEqualTo(-1);
	}

	/** The guard scripts' effect, as the real ones have it on one server. */
	private static final class FakeServer implements ServerState.Server {

		String info = INFO + NO_EVICTION;

		String marker;

		String vetted;

		/** The replication id the marker records as vetted. */
		String vettedReplid;

		/** The possible loss recorded on the marker ("nonce replid"), or null. */
		String suspect;

		String appendfsync = "everysec";

		boolean configRefused;

		String nonce;

		/** The nonce the marker was written at the end of, or null. */
		String from;

		/** The longest live guard recorded by another engine; 0 if none. */
		long recordedGuard;

		/** This engine's guard as it recorded it. */
		long ownGuard;

		long promotedGuard;

		boolean loseBeforePromote;

		boolean fail;

		Runnable beforeAnswer = () -> {
		};

		final List<String> scripts = new ArrayList<>();

		void mark(String id, String runId) {
			this.marker = id;
			this.vetted = runId;
			this.vettedReplid = "r" + runId;
			this.from = null;
		}

		void flush() {
			this.marker = null;
			this.vetted = null;
			this.vettedReplid = null;
			this.suspect = null;
			this.nonce = null;
			this.from = null;
			this.recordedGuard = 0;
		}

		@Override
		public CompletionStage<String> info(String section) {
			if (this.fail) {
				return CompletableFuture.failedFuture(new RedisConnectionException("down"));
			}
			this.beforeAnswer.run();
			// INFO default has the replication section, as the scripts read it
			String replication = this.info.contains("master_replid:") ? "" : "\r\nmaster_replid:" + replid();
			return CompletableFuture.completedFuture(this.info + replication);
		}

		@Override
		public CompletionStage<String> configGet(String parameter) {
			return this.configRefused ? CompletableFuture.failedFuture(new RedisConnectionException("NOPERM"))
					: CompletableFuture.completedFuture(this.appendfsync);
		}

		/**
		 * What INFO says, or the default: a master, its replication id one per run_id.
		 */
		private String field(String name, String otherwise) {
			String value = ServerState.field(this.info, name);
			return (value != null) ? value : otherwise;
		}

		String runId() {
			return field("run_id:", "");
		}

		String replid() {
			return field("master_replid:", "r" + runId());
		}

		private List<Object> read(long found, String id) {
			long guard = Math.max(this.ownGuard, this.recordedGuard);
			String by = (this.recordedGuard > this.ownGuard) ? "4242@other-host" : "";
			return List.of(found, id, guard, (found == 1 && this.vetted != null) ? this.vetted : "",
					(found == 1 && this.vettedReplid != null) ? this.vettedReplid : "",
					(found == 1 && this.suspect != null) ? this.suspect : "", "", field("role:", "master"), replid(),
					field("master_replid2:", "0000"), runId(), by, this.recordedGuard,
					(found == 1 && this.from != null) ? this.from : "");
		}

		@Override
		public CompletionStage<List<Object>> eval(Script script, String[] keys, String... args) {
			this.scripts.add(script.name());
			if (this.fail) {
				return CompletableFuture.failedFuture(new RedisConnectionException("down"));
			}
			if (script == Script.GUARD_READ) {
				this.ownGuard = Long.parseLong(args[1]);
				if (this.marker != null) {
					return CompletableFuture.completedFuture(read(1L, this.marker));
				}
				if (this.nonce == null) {
					this.nonce = args[0];
				}
				return CompletableFuture.completedFuture(read(0L, this.nonce));
			}
			if (script == Script.GUARD_EVICTED) {
				this.marker = null;
				this.vetted = null;
				this.vettedReplid = null;
				this.suspect = null;
				this.nonce = args[0];
				return CompletableFuture.completedFuture(List.of(0L, this.nonce, Long.parseLong(args[1])));
			}
			if (script == Script.GUARD_VET) {
				if (!args[0].equals(this.marker) || !args[3].equals((this.suspect != null) ? this.suspect : "")
						|| !args[2].equals(replid())) {
					return CompletableFuture.completedFuture(List.of(0L));
				}
				this.vetted = args[1];
				this.vettedReplid = args[2];
				this.suspect = null;
				return CompletableFuture.completedFuture(List.of(1L));
			}
			if (script == Script.GUARD_SUSPECT) {
				if (!args[0].equals(this.marker)) {
					return CompletableFuture.completedFuture(List.of(0L));
				}
				String current = (this.suspect != null) ? this.suspect : "";
				if (!current.equals(args[2])) {
					return CompletableFuture.completedFuture(List.of(1L, current));
				}
				this.suspect = args[1];
				return CompletableFuture.completedFuture(List.of(1L, this.suspect));
			}
			if (this.loseBeforePromote) {
				flush();
			}
			if (this.marker != null) {
				return CompletableFuture.completedFuture(List.of(1L, this.marker));
			}
			if (!args[0].equals(this.nonce) || (args.length > 4 && !args[4].isEmpty() && !args[4].equals(replid()))) {
				return CompletableFuture.completedFuture(List.of(0L));
			}
			this.marker = args[1];
			this.promotedGuard = Long.parseLong(args[2]);
			this.vetted = args[3];
			this.vettedReplid = replid();
			this.from = this.nonce;
			this.nonce = null;
			return CompletableFuture.completedFuture(List.of(1L, this.marker));
		}

	}

}
