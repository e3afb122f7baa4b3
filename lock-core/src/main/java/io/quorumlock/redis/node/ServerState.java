package io.quorumlock.redis.node;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.LongConsumer;
import java.util.logging.Logger;

/**
 * What a node knows of its server on the connection open now: its {@code run_id} (to
 * count a master listed twice once), whether it can evict lock keys, and, under the
 * restart guard, whether its data can be trusted. Read on every connection epoch (and
 * again now and then); believed only while that epoch lasts, so from the moment a
 * connection drops until the next read the node does not vote.
 * <p>
 * The restart guard detects lost data instead of dating it: it trusts no server clock and
 * no {@code uptime_in_seconds} (which follows the server's wall clock, and an address may
 * start reaching another server). Each master carries a dataset marker, a key without TTL
 * that the granting scripts check atomically ({@link Script#ACQUIRE}), so a master that
 * lost its data (restarted empty, flushed, another server behind its address) refuses to
 * vote inside the very script that would grant. A master without it is held back: the
 * first engine to see it leaves a pending record with a nonce
 * ({@link Script#GUARD_READ}); each engine holds the master back for the longest guard
 * recorded on any master ({@link GuardRecord}), measured on its own monotonic clock from
 * when it first saw that nonce, widened by the clock-drift factor; then writes the marker
 * only if the nonce is still there ({@link Script#GUARD_PROMOTE}), that is, only if no
 * further loss happened since. Any lease granted with this master before the loss was
 * granted before the nonce existed, so it has expired by then.
 * <p>
 * Trust follows the dataset's replication history, not the server process: the marker
 * records the replication id ({@code master_replid}) of the server last vetted, which the
 * granting scripts compare with the server's own ({@link Script#VETTED}), so a server
 * switched behind an open connection never votes. A master whose replication id is not
 * the one vetted (a replica promoted, a resync and failback, a restart) may lack writes:
 * unless the change loses nothing (a restart that keeps every write, on a dataset never
 * seen with replicas; the same process with a new backlog), the suspicion is recorded on
 * the master itself ({@link Script#GUARD_SUSPECT}), so that no restart erases it, and the
 * master is held back from when this engine first saw it, then vetted again
 * ({@link Script#GUARD_VET}). A replica does not vote. A marker with another dataset id
 * than the one this engine last trusted on this entry (another server behind the address,
 * or a loss handled while this engine was away) is held back the same way, from when this
 * engine first saw it as it is: a change of its server process, its replication id or the
 * suspicion recorded on it during that hold-back starts it over. Server processes an
 * operator declared brand new ({@code fresh-master-run-ids}) get their marker at once.
 * <p>
 * A master seen with an eviction policy and a memory limit, or whose {@code evicted_keys}
 * counter (a count, not a clock) grew between two reads of the same server process, may
 * have dropped lock keys of leases still valid: unless evicting masters are accepted, it
 * is treated as a master that lost its data ({@link Script#GUARD_EVICTED}), at every such
 * read, so that it is held back for the guard from when it was last seen evicting or to
 * have evicted.
 */
public final class ServerState {

	/** What a read found, in one epoch; replaced whole. */
	private record Seen(long epoch, String runId, String replid, long uptimeNanos, long readAt, String evicting,
			long evictedKeys, boolean aofEnabled, boolean promoted, boolean trusted) {

		Seen trusted(boolean trusted) {
			return new Seen(this.epoch, this.runId, this.replid, this.uptimeNanos, this.readAt, this.evicting,
					this.evictedKeys, this.aofEnabled, this.promoted, trusted);
		}

	}

	/** A server process's {@code evicted_keys} as last read. */
	private record Evicted(String runId, long count) {
	}

	/**
	 * A hold-back in progress: of the loss named by a nonce, or of a dataset this engine
	 * does not know on this entry; since this engine first saw it.
	 */
	private record Hold(String what, long since) {
	}

	private static final Logger log = Logger.getLogger(ServerState.class.getName());

	/** The dataset marker and the pending record, for the scripts that use both. */
	private String[] pair() {
		return new String[] { this.guardKeys[0], this.guardKeys[1] };
	}

	private static String seconds(long millis) {
		return TimeUnit.MILLISECONDS.toSeconds(millis + 999) + " s";
	}

	/** How many superseded replication ids an entry remembers. */
	private static final int SUPERSEDED_KEPT = 16;

	/** What a replica is held back for: it does not vote while it replicates. */
	private static final String REPLICA = "replica";

	/** The guard scripts' keys: the dataset marker, then the pending record. */
	private final String[] guardKeys;

	private final LongSupplier epoch;

	private final LongSupplier nanoClock;

	/** Null without a restart guard (single mode, or rejoin-delay 0). */
	private final GuardRecord guard;

	private final double clockDriftFactor;

	private final Set<String> freshRunIds;

	/**
	 * Whether this engine ever trusted a marker on any master: a deployment in use, whose
	 * masters are no longer brand new whatever was declared; shared by the engine's
	 * nodes.
	 */
	private final AtomicBoolean anyMarked;

	/** Random ids: nonces and dataset ids. */
	private final Supplier<String> ids;

	private final boolean evictionAllowed;

	private volatile Seen seen = new Seen(-1, null, "", -1, 0, null, -1, false, false, false);

	/**
	 * The eviction counter when last read without a loss to record, or once a loss it
	 * showed was recorded on the master; null until read.
	 */
	private volatile Evicted evicted;

	/** The nonce this engine wrote for a master seen evicting, for messages. */
	private volatile String evictedNonce;

	/** The dataset id this engine trusts on this entry; kept across epochs. */
	private volatile String trustedId;

	/** The replication id this engine last trusted on this entry; null before. */
	private volatile String trustedReplid;

	/**
	 * Replication ids this engine trusted on this entry before it trusted another, the
	 * latest {@link #SUPERSEDED_KEPT}: seen again, they are a possible loss. Changed only
	 * by the node's reads, one at a time.
	 */
	private final Set<String> superseded = Collections.synchronizedSet(new LinkedHashSet<>());

	private volatile Hold hold;

	private volatile boolean reading;

	/**
	 * @param guardKeys the dataset marker and the pending record
	 * @param epoch the node's connection epoch now
	 * @param nanoClock the engine's clock
	 * @param guard the restart guard, or null without one
	 * @param clockDriftFactor how far the engine's clock may run from true time
	 * @param freshRunIds server processes an operator declared brand new
	 * @param anyMarked whether the engine ever trusted a marker on any master
	 * @param ids new random ids
	 * @param evictionAllowed whether masters that can evict lock keys vote anyway
	 */
	ServerState(String[] guardKeys, LongSupplier epoch, LongSupplier nanoClock, GuardRecord guard,
			double clockDriftFactor, Set<String> freshRunIds, AtomicBoolean anyMarked, Supplier<String> ids,
			boolean evictionAllowed) {
		this.guardKeys = guardKeys;
		this.epoch = epoch;
		this.nanoClock = nanoClock;
		this.guard = guard;
		this.clockDriftFactor = clockDriftFactor;
		this.freshRunIds = freshRunIds;
		this.anyMarked = anyMarked;
		this.ids = ids;
		this.evictionAllowed = evictionAllowed;
	}

	/**
	 * What to ask a server: INFO, its configuration, and a script, on the node's link.
	 */
	interface Server {

		CompletionStage<String> info(String section);

		CompletionStage<String> configGet(String parameter);

		CompletionStage<List<Object>> eval(Script script, String[] keys, String... args);

	}

	/**
	 * Read the server's state on the connection open now; the answers are believed only
	 * if that epoch is still current when they come back.
	 * @param latency told the round trip of a believed answer
	 * @return completes normally once done, whatever it found
	 */
	public CompletableFuture<Void> read(Server server, LongConsumer latency) {
		this.reading = true;
		long sentIn = this.epoch.getAsLong();
		long sent = this.nanoClock.getAsLong();
		// server (run_id), memory (eviction), persistence (append-only file), stats
		// (evicted keys), replication
		CompletableFuture<String> info = server.info("default").toCompletableFuture();
		CompletableFuture<List<Object>> marker = (this.guard != null) ? server
			.eval(Script.GUARD_READ, this.guardKeys, this.ids.get(), Long.toString(this.guard.millis()),
					this.guard.id(), this.guard.who(), Long.toString(this.guard.recordMillis()))
			.toCompletableFuture() : CompletableFuture.completedFuture(null);
		return CompletableFuture.allOf(info, marker).handle((ok, error) -> {
			long now = this.nanoClock.getAsLong();
			if (this.epoch.getAsLong() != sentIn) {
				return CompletableFuture.<Void>completedFuture(null);
			}
			if (error != null) {
				if (this.guard == null && !Replies.withoutReply(error)) {
					// single mode, INFO refused (an ACL without +info): nothing to hold
					// the node back for, and no eviction policy known to refuse it for
					this.seen = new Seen(sentIn, null, "", -1, now, null, -1, false, false, true);
				}
				return CompletableFuture.<Void>completedFuture(null);
			}
			latency.accept(now - sent);
			String text = info.join();
			long uptime = parseUptimeSeconds(text);
			String replid = field(text, "master_replid:");
			Seen found = new Seen(sentIn, parseRunId(text), (replid != null) ? replid : "",
					(uptime < 0) ? -1 : TimeUnit.SECONDS.toNanos(uptime), now, evicting(text),
					parseCount(text, "evicted_keys:"), "1".equals(field(text, "aof_enabled:")), wasReplica(text),
					this.guard == null);
			if (this.guard == null) {
				this.seen = found;
				return CompletableFuture.<Void>completedFuture(null);
			}
			if (!this.evictionAllowed && (found.evicting != null || evictedSinceLastRead(found))) {
				return evictedNow(server, found, now);
			}
			this.evicted = new Evicted(found.runId, found.evictedKeys);
			return judge(server, found, marker.join(), now, false);
		}).thenCompose((done) -> done).whenComplete((ok, error) -> this.reading = false);
	}

	/**
	 * Whether the server process read before evicted keys since: its {@code evicted_keys}
	 * changed (grew, or was reset by {@code CONFIG RESETSTAT}, after which nothing tells
	 * what was evicted).
	 */
	private boolean evictedSinceLastRead(Seen found) {
		Evicted before = this.evicted;
		return before != null && found.evictedKeys >= 0 && found.runId != null && found.runId.equals(before.runId)
				&& found.evictedKeys != before.count;
	}

	/**
	 * A master seen evicting, or to have evicted since the last read: recorded on it as a
	 * loss (a new nonce, no marker), which every engine then holds back from when it
	 * first sees it. Until that is recorded, the master does not vote, and the next read
	 * sees the same eviction again.
	 */
	private CompletableFuture<Void> evictedNow(Server server, Seen found, long now) {
		String nonce = this.ids.get();
		return server.eval(Script.GUARD_EVICTED, pair(), nonce, Long.toString(this.guard.millis()))
			.toCompletableFuture()
			.handle((lost, error) -> {
				if (this.epoch.getAsLong() != found.epoch) {
					return CompletableFuture.<Void>completedFuture(null);
				}
				if (error != null) {
					this.seen = found.trusted(false);
					return CompletableFuture.<Void>completedFuture(null);
				}
				this.evicted = new Evicted(found.runId, found.evictedKeys);
				this.evictedNonce = nonce;
				return judge(server, found, lost, now, true);
			})
			.thenCompose((done) -> done);
	}

	/**
	 * The guard's verdict on a marker read ({@link Script#GUARD_READ}), ending a
	 * hold-back that is over.
	 * <p>
	 * Trust follows the dataset's replication history, not the server process: the marker
	 * records the replication id ({@code master_replid}) of the server last vetted, and a
	 * master whose own id is another (a replica promoted, a master resynced from another
	 * server and failed back, a restart, another server behind the address) may lack
	 * writes it acknowledged: unless the change is one that loses nothing, it is a
	 * possible loss, recorded on the master itself ({@link Script#GUARD_SUSPECT}) so that
	 * no restart erases it, and held back for the guard from when this engine first saw
	 * that record. A replica does not vote.
	 * @param evicted whether the read found the master evicting, or to have evicted
	 */
	private CompletableFuture<Void> judge(Server server, Seen found, List<Object> marker, long now, boolean evicted) {
		if (marker.size() > 12 && this.guard.adopt(this, ((Number) marker.get(2)).longValue(), text(marker, 11),
				((Number) marker.get(12)).longValue(), intact(marker, evicted), now)) {
			log.warning("quorumlock: this instance's restart guard, " + seconds(this.guard.millis())
					+ " (quorumlock.rejoin-delay, by default its longest lease), is more than twice the longest of "
					+ "the other clients of these masters, " + seconds(((Number) marker.get(12)).longValue())
					+ ": every client of these masters now holds a master that lost its data back for "
					+ seconds(this.guard.millis()) + ", for as long as this instance runs (and its guard after)");
		}
		Replication replication = Replication.of(marker);
		if (replication.isReplica()) {
			Hold current = this.hold;
			if (current == null || !current.what.equals(REPLICA)) {
				this.hold = new Hold(REPLICA, now);
			}
			return untrusted(found);
		}
		String id = (String) marker.get(1);
		String runId = (replication.runId != null) ? replication.runId : found.runId;
		if (((Number) marker.get(0)).longValue() == 0) {
			// declared brand new: only while no master of these was ever seen marked (a
			// deployment in use is not brand new, and a FLUSHALL does not make it so),
			// and never one that evicted
			boolean fresh = !evicted && runId != null && this.freshRunIds.contains(runId) && this.trustedId == null
					&& !this.anyMarked.get();
			// held back from when this engine first saw the loss on this server process
			// and history: a replica promoted behind the address carries the same pending
			// record from before the grants its former master made once marked again
			String replid = !replication.replid.isEmpty() ? replication.replid : found.replid;
			if (!fresh && !held("nonce " + id + " " + runId + " " + replid, now)) {
				this.seen = found.trusted(false);
				return CompletableFuture.completedFuture(null);
			}
			return promote(server, found, id, runId, replid);
		}
		String vetted = text(marker, 3);
		String vettedReplid = text(marker, 4);
		String suspect = text(marker, 5);
		boolean replicated = "1".equals(text(marker, 6));
		boolean knownDataset = this.trustedId == null || this.trustedId.equals(id);
		String replid = !replication.replid.isEmpty() ? replication.replid : found.replid;
		Hold current = this.hold;
		String from = text(marker, 13);
		if (!knownDataset && !from.isEmpty() && suspect.isEmpty() && replid.equals(vettedReplid) && current != null
				&& current.what.equals("nonce " + from + " " + runId + " " + replid)) {
			// the marker another engine wrote at the end of its hold-back of the very
			// loss this engine holds back, on the server process and history it holds
			// back: the hold-back goes on from when this engine first saw that loss,
			// rather than starting again for a dataset it does not know
			return held(current.what, now) ? vet(server, found, id, runId, replid, "") : untrusted(found);
		}
		if (!knownDataset) {
			// held back from when this engine first saw the dataset as it is now: its
			// server process, replication id and suspicion included, so that a loss
			// after that first sight (a replica promoted, a restart, a suspicion another
			// engine raised) starts the hold-back again instead of being vetted with it
			String seenAs = "dataset " + id + " " + runId + " " + replication.replid + " " + suspect;
			return held(seenAs, now) ? vet(server, found, id, runId, replication.replid, suspect) : untrusted(found);
		}
		if (!suspect.isEmpty()) {
			if (!replication.replid.equals(suspicionReplid(suspect))) {
				// changed again since the suspicion was raised: a further possible loss,
				// held back anew
				return suspect(server, found, id, replication, suspect, now);
			}
			return held("suspect " + suspicionNonce(suspect), now)
					? vet(server, found, id, runId, replication.replid, suspect) : untrusted(found);
		}
		if (!replication.replid.isEmpty() && replication.replid.equals(vettedReplid)) {
			if (this.superseded.contains(replication.replid)) {
				// a history this engine trusted here before it trusted another: the
				// address is back on an earlier server (a failback to a master never
				// demoted), which lacks what was granted on the later one
				return suspect(server, found, id, replication, "", now);
			}
			trust(found, id, true, replication.replid);
			return CompletableFuture.completedFuture(null);
		}
		boolean sameProcess = runId != null && runId.equals(vetted);
		if (sameProcess && !replication.promoted()) {
			// the very process vetted: under a marker that records no replication id yet
			// (written by an earlier version), or with a new id without a promotion (a
			// master creates its replication backlog afresh, with a new id, when its
			// first replica attaches after it had none for a while); a resync and a
			// failback always show a promotion
			return vet(server, found, id, runId, replication.replid, "");
		}
		if (!sameProcess && !replication.promoted() && !replicated) {
			// a new process of a dataset never seen with replicas: a restart, which
			// lost nothing if it keeps every write
			return keepsEveryWrite(server, found)
				.thenCompose((keeps) -> keeps ? vet(server, found, id, runId, replication.replid, "")
						: suspect(server, found, id, replication, "", now));
		}
		return suspect(server, found, id, replication, "", now);
	}

	/**
	 * Whether a marker read shows the dataset this engine trusts on this entry (or,
	 * before it trusted any, a marked one) with no sign of a loss: the same replication
	 * history as vetted, no suspicion, not a replica, nothing evicted. The engines' guard
	 * records live in the dataset, so a read that shows a possible loss may lack the
	 * records of engines whose leases the loss concerns: such a read does not lower the
	 * guard this engine adopts from the master while the record read before could still
	 * last there ({@link GuardRecord#adopt}).
	 */
	private boolean intact(List<Object> marker, boolean evicted) {
		if (evicted || ((Number) marker.get(0)).longValue() == 0) {
			return false;
		}
		Replication replication = Replication.of(marker);
		String id = (String) marker.get(1);
		return !replication.isReplica() && (this.trustedId == null || this.trustedId.equals(id))
				&& text(marker, 5).isEmpty() && !replication.replid.isEmpty()
				&& replication.replid.equals(text(marker, 4));
	}

	/**
	 * Record a possible loss on the master (or take the one another engine recorded
	 * first), and hold the master back from when this engine first saw it.
	 * @param before the suspicion read, empty if none
	 */
	private CompletableFuture<Void> suspect(Server server, Seen found, String id, Replication replication,
			String before, long now) {
		String suspicion = this.ids.get() + " " + replication.replid;
		return server.eval(Script.GUARD_SUSPECT, new String[] { this.guardKeys[0] }, id, suspicion, before)
			.toCompletableFuture()
			.handle((reply, error) -> {
				if (this.epoch.getAsLong() == found.epoch && error == null
						&& ((Number) reply.get(0)).longValue() == 1) {
					String recorded = text(reply, 1);
					if (!recorded.isEmpty()) {
						held("suspect " + suspicionNonce(recorded), now);
					}
				}
				if (this.epoch.getAsLong() == found.epoch) {
					this.seen = found.trusted(false);
				}
				return null;
			});
	}

	private static String suspicionNonce(String suspicion) {
		int space = suspicion.indexOf(' ');
		return (space < 0) ? suspicion : suspicion.substring(0, space);
	}

	private static String suspicionReplid(String suspicion) {
		int space = suspicion.indexOf(' ');
		return (space < 0) ? "" : suspicion.substring(space + 1);
	}

	/** Element {@code index} of a script's reply as text; empty if absent. */
	private static String text(List<Object> reply, int index) {
		Object value = (reply.size() > index) ? reply.get(index) : null;
		return (value != null) ? value.toString() : "";
	}

	/**
	 * The server's replication history as the guard script read it in the same step as
	 * the marker: its role, {@code master_replid}, whether it was promoted (a
	 * {@code master_replid2} set) and its {@code run_id}. Unknown (a master, with an
	 * empty id) from a reply without it ({@link Script#GUARD_EVICTED}).
	 */
	private record Replication(String role, String replid, boolean promoted, String runId) {

		static Replication of(List<Object> reply) {
			if (reply.size() < 11) {
				return new Replication("master", "", false, null);
			}
			String replid2 = text(reply, 9);
			String runId = text(reply, 10);
			return new Replication(text(reply, 7), text(reply, 8),
					!replid2.isEmpty() && !replid2.chars().allMatch((c) -> c == '0'), runId.isEmpty() ? null : runId);
		}

		boolean isReplica() {
			return !this.role.isEmpty() && !this.role.equals("master");
		}

	}

	/**
	 * Whether the hold-back of {@code what} (from its first sight, now or before) is
	 * over; starts it if new.
	 */
	private boolean held(String what, long now) {
		Hold current = this.hold;
		Hold held = (current != null && current.what.equals(what)) ? current : new Hold(what, now);
		this.hold = held;
		return now - held.since >= holdBackNanos();
	}

	private CompletableFuture<Void> untrusted(Seen found) {
		this.seen = found.trusted(false);
		return CompletableFuture.completedFuture(null);
	}

	/**
	 * Whether the server keeps every acknowledged write across a restart: an append-only
	 * file with {@code appendfsync always}. False when the configuration cannot be read.
	 */
	private static CompletableFuture<Boolean> keepsEveryWrite(Server server, Seen found) {
		if (!found.aofEnabled) {
			return CompletableFuture.completedFuture(false);
		}
		return server.configGet("appendfsync").toCompletableFuture().handle((fsync, error) -> "always".equals(fsync));
	}

	/** Write the marker of a master held back long enough since it lost its data. */
	private CompletableFuture<Void> promote(Server server, Seen found, String nonce, String runId, String replid) {
		return server
			.eval(Script.GUARD_PROMOTE, pair(), nonce, this.ids.get(), Long.toString(this.guard.adoptedMillis()),
					String.valueOf(runId), replid)
			.toCompletableFuture()
			.handle((promoted, error) -> {
				if (this.epoch.getAsLong() == found.epoch) {
					if (error == null && ((Number) promoted.get(0)).longValue() == 1) {
						// a marker this engine wrote (or another wrote just before): no
						// sign of a deployment in use, so other declared-fresh masters
						// stay fresh
						trust(found, (String) promoted.get(1), false, replid);
					}
					else {
						this.hold = null; // lost again since: the next read starts over
						this.seen = found.trusted(false);
					}
				}
				return null;
			});
	}

	/**
	 * Record the server as vetted on its dataset (its run_id and replication id), and
	 * trust it.
	 * @param suspicion the suspicion held back for, which the record clears; empty if
	 * none
	 */
	private CompletableFuture<Void> vet(Server server, Seen found, String id, String runId, String replid,
			String suspicion) {
		return server
			.eval(Script.GUARD_VET, new String[] { this.guardKeys[0] }, id, String.valueOf(runId), replid, suspicion)
			.toCompletableFuture()
			.handle((vetted, error) -> {
				if (this.epoch.getAsLong() == found.epoch) {
					if (error == null && ((Number) vetted.get(0)).longValue() == 1) {
						trust(found, id, true, replid);
					}
					else {
						// the dataset changed since: the next read starts over
						this.hold = null;
						this.seen = found.trusted(false);
					}
				}
				return null;
			});
	}

	/**
	 * Trust the server's data from now on.
	 * @param wasMarked whether the marker was there already when read (a deployment in
	 * use), rather than just written for a master that lost its data or is brand new
	 */
	private void trust(Seen found, String id, boolean wasMarked, String replid) {
		if (wasMarked) {
			this.anyMarked.set(true);
		}
		String before = this.trustedReplid;
		if (before != null && !before.isEmpty() && !before.equals(replid)) {
			this.superseded.add(before);
			if (this.superseded.size() > SUPERSEDED_KEPT) {
				this.superseded.remove(this.superseded.iterator().next());
			}
		}
		// vetted again (held back for it): trusted from now on
		this.superseded.remove(replid);
		this.trustedReplid = replid;
		this.trustedId = id;
		this.hold = null;
		this.seen = found.trusted(true);
	}

	/**
	 * How long a master without its marker is held back: the longest guard of these
	 * masters, widened so that it lasts that long in true time even on a clock that runs
	 * fast by the drift factor.
	 */
	public long holdBackNanos() {
		long guard = this.guard.adoptedNanos();
		return guard + (long) Math.ceil(guard * this.clockDriftFactor / (1 - this.clockDriftFactor));
	}

	/** A granting script found no marker in {@code epoch}: the data was lost. */
	public void dataLost(long epoch) {
		Seen current = this.seen;
		if (current.epoch == epoch && current.trusted) {
			this.seen = current.trusted(false);
		}
	}

	/** Whether a read is in flight. */
	public boolean isReading() {
		return this.reading;
	}

	/** Whether the state was read on the connection open now. */
	public boolean isKnown() {
		return this.seen.epoch == this.epoch.getAsLong();
	}

	/** Whether the guard trusts the server's data now (always, without a guard). */
	public boolean isTrusted() {
		Seen current = this.seen;
		return current.epoch == this.epoch.getAsLong() && current.trusted;
	}

	/** The eviction policy that can drop lock keys, if the server has one; else null. */
	public String evicting() {
		Seen current = this.seen;
		return (current.epoch == this.epoch.getAsLong()) ? current.evicting : null;
	}

	/** The server's {@code run_id} as read on the connection open now; else null. */
	public String runId() {
		Seen current = this.seen;
		return (current.epoch == this.epoch.getAsLong()) ? current.runId : null;
	}

	/**
	 * How long the server had been up when last read (its own account); -1 if unknown.
	 */
	public long uptimeNanos() {
		Seen current = this.seen;
		return (current.epoch == this.epoch.getAsLong() && current.uptimeNanos >= 0)
				? current.uptimeNanos + (this.nanoClock.getAsLong() - current.readAt) : -1;
	}

	/**
	 * How much longer the guard holds the server back; the whole hold-back if unknown.
	 */
	public long heldBackNanos() {
		if (this.guard == null || isTrusted()) {
			return 0;
		}
		Hold current = this.hold;
		long full = holdBackNanos();
		return (current == null || current.what.equals(REPLICA)) ? full
				: Math.max(0, current.since + full - this.nanoClock.getAsLong());
	}

	/** Why the guard holds the server back now, for messages; null if it does not. */
	public String heldBackReason() {
		if (this.guard == null || isTrusted()) {
			return null;
		}
		Hold current = this.hold;
		long guardSeconds = TimeUnit.NANOSECONDS.toSeconds(this.guard.adoptedNanos());
		String by = this.guard.adoptedBy();
		String recorded = (by != null) ? ", recorded by " + by : "";
		if (!isKnown() || current == null) {
			return "held back by the restart guard until its dataset marker is read (rejoin-delay " + guardSeconds
					+ " s" + recorded + ")";
		}
		if (current.what.equals(REPLICA)) {
			return "held back: it is a replica (role:slave), which takes no lock writes; promoted, it is held back "
					+ "by the restart guard (rejoin-delay " + guardSeconds + " s" + recorded + ")";
		}
		long left = TimeUnit.NANOSECONDS.toSeconds(heldBackNanos() + 999_999_999);
		String why = why(current.what);
		return "held back by the restart guard for another " + left + " s: " + why + " (rejoin-delay " + guardSeconds
				+ " s" + recorded + ")";
	}

	/**
	 * The policy of an {@code INFO memory} text if it can evict keys with a TTL (a memory
	 * limit and a policy other than {@code noeviction}), else null.
	 */
	public static String evicting(String memory) {
		String policy = field(memory, "maxmemory_policy:");
		String limit = field(memory, "maxmemory:");
		if (policy == null || policy.equals("noeviction") || limit == null || limit.equals("0")) {
			return null;
		}
		return policy;
	}

	/**
	 * Whether an {@code INFO replication} text says the server took over from a master it
	 * replicated ({@code master_replid2} set), so that its data may lag that master's.
	 */
	public static boolean wasReplica(String info) {
		String replid2 = field(info, "master_replid2:");
		return replid2 != null && !replid2.chars().allMatch((c) -> c == '0');
	}

	/** The {@code run_id} line of {@code INFO server}; null if there is none. */
	public static String parseRunId(String info) {
		String id = field(info, "run_id:");
		return (id == null || id.isEmpty()) ? null : id;
	}

	/** Why a hold-back is in progress, from what it holds back ({@link Hold}). */
	private String why(String what) {
		if (what.startsWith("nonce " + this.evictedNonce + " ")) {
			return "it evicted keys, or had an eviction policy with a memory limit, and may have dropped lock keys";
		}
		if (what.startsWith("nonce")) {
			return "it lost its data (restarted empty, flushed, another server behind its address, or keys evicted)";
		}
		if (what.startsWith("suspect")) {
			return "its replication history changed (a replica promoted, a resync from another server, a failover "
					+ "behind its address, or a restart that may lack the last writes), so it may lack keys it granted";
		}
		return "another dataset than the one seen before is behind its address";
	}

	/** A counter line of {@code INFO}, such as {@code evicted_keys:}; -1 if none. */
	static long parseCount(String info, String name) {
		String count = field(info, name);
		try {
			return (count != null) ? Long.parseLong(count) : -1;
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	/** The {@code uptime_in_seconds} line of {@code INFO server}; -1 if there is none. */
	public static long parseUptimeSeconds(String info) {
		return parseCount(info, "uptime_in_seconds:");
	}

	/**
	 * The value of the first line of {@code info} that starts with {@code name}, trimmed;
	 * null if none. Read once a second per master: a scan of the text, not a split of it
	 * into lines.
	 */
	static String field(String info, String name) {
		int from = 0;
		while (from < info.length()) {
			int end = info.indexOf('\n', from);
			if (end < 0) {
				end = info.length();
			}
			if (info.startsWith(name, from)) {
				return info.substring(from + name.length(), end).trim();
			}
			from = end + 1;
		}
		return null;
	}

}
