package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.quorumlock.LockMode;

/**
 * The history of a simulated run and its invariants, checked on every step: every grant
 * with its holder engine and its validity (the lease's own, measured on the holder's
 * clock at the true time of each step), every release, loss, fencing token and fenced
 * write. A violation stops the run with a one-line account; the run's trace tells the
 * rest.
 * <ul>
 * <li>no two holders of an exclusive key are valid at once;</li>
 * <li>no exclusive holder is valid beside a valid shared one;</li>
 * <li>at most k holders of a key's k permits are valid at once;</li>
 * <li>fencing tokens of a key strictly increase in grant order;</li>
 * <li>no lease is renewed (its keys extended or fenced) after it was released or lost;
 * once every engine is closed and every lease has run out, no lock key is left;</li>
 * <li>every acquisition ends (granted, refused or failed) by its deadline;</li>
 * <li>a lease is never granted without validity left, and a grant on several keys starts
 * with its lease left less one proof round (a third of the lease, or one round of its
 * engine if longer: a sync-replicas round waits for the replicas too) and the drift
 * allowance.</li>
 * </ul>
 */
final class SimHistory {

	/** A grant the caller received, and what became of it. */
	static final class Grant {

		final int id;

		final String engine;

		final SimTimers clock;

		final RedisLease lease;

		/** The Redis keys as the invariants see them: a permit's base key for permits. */
		final List<String> keys;

		final LockMode mode;

		final int permits;

		final long grantedAt;

		long token = -1;

		/** When the run first saw it released or lost; null while it lives. */
		Long endedAt;

		Grant(int id, String engine, SimTimers clock, RedisLease lease, long grantedAt) {
			this.id = id;
			this.engine = engine;
			this.clock = clock;
			this.lease = lease;
			this.mode = lease.request().request().mode();
			this.permits = lease.request().request().permits();
			this.keys = lease.request().redisKeys();
			this.grantedAt = grantedAt;
		}

		boolean isValid() {
			return this.lease.isValid();
		}

		boolean isOver() {
			return this.lease.isReleased() || this.lease.lost() != null;
		}

		String base() {
			String key = this.keys.get(0);
			int at = key.lastIndexOf(":permit:");
			return (at >= 0) ? key.substring(0, at) : key;
		}

		@Override
		public String toString() {
			return "lease#" + this.id + "(" + this.engine + " " + this.mode.name().toLowerCase() + " " + this.keys
					+ ((this.token >= 0) ? " token " + this.token : "") + ")";
		}

	}

	private final SimLoop loop;

	private final List<Grant> active = new ArrayList<>();

	private final List<Grant> all = new ArrayList<>();

	private final Map<String, Grant> byToken = new HashMap<>();

	/** Per exclusive key, the grants that got a fencing token. */
	private final Map<String, List<Grant>> fenced = new HashMap<>();

	/** Per key, the highest token a fenced store accepted. */
	private final Map<String, Long> store = new HashMap<>();

	private String violation;

	int acquisitions;

	int granted;

	int refused;

	int tokens;

	int staleWritesRefused;

	SimHistory(SimLoop loop) {
		this.loop = loop;
	}

	String violation() {
		return this.violation;
	}

	void violate(String what) {
		if (this.violation == null) {
			this.violation = what;
			this.loop.trace("VIOLATION " + what);
			this.loop.stop();
		}
	}

	/**
	 * The validity a lease sets aside for clock drift: {@code lease × 0.01 + 2 ms}, the
	 * simulation's drift factor. A grant on several keys starts with its lease less one
	 * proof round left, less this.
	 */
	private static long driftAllowance(long leaseNanos) {
		return leaseNanos / 100 + 2_000_000L;
	}

	/**
	 * The caller received a lease.
	 * @param roundNanos the longest one round of the engine takes: a multi-key grant's
	 * proof round costs its validity at most that (or a third of the lease, if longer)
	 */
	Grant granted(String engine, SimTimers clock, RedisLease lease, long roundNanos) {
		Grant grant = new Grant(this.all.size() + 1, engine, clock, lease, this.loop.now());
		this.all.add(grant);
		this.active.add(grant);
		for (int i = 0; i < grant.keys.size(); i++) {
			this.byToken.put(lease.token(i), grant);
		}
		this.granted++;
		this.loop.trace(grant + " granted, valid " + lease.remaining().toMillis() + " ms");
		long left = lease.remaining().toNanos();
		long whole = lease.request().lease().toNanos();
		if (left <= 0) {
			violate("granted without validity left: " + grant);
		}
		else if (lease.request().redisKeys().size() > 1
				&& left + driftAllowance(whole) + Math.max(whole / 3, roundNanos) < whole) {
			violate("a multi-key grant with less than its lease less one proof round left: " + grant + " ("
					+ left / 1_000_000 + " of " + whole / 1_000_000 + " ms, a round "
					+ Math.max(whole / 3, roundNanos) / 1_000_000 + " ms at most)");
		}
		check();
		return grant;
	}

	/** A fencing token was handed to a caller. */
	void token(Grant grant, long token) {
		grant.token = token;
		this.tokens++;
		this.loop.trace(grant + " fencing token");
		for (String key : grant.keys) {
			List<Grant> holders = this.fenced.computeIfAbsent(key, (k) -> new ArrayList<>());
			for (Grant other : holders) {
				boolean before = other.grantedAt < grant.grantedAt;
				if ((before && other.token >= token) || (!before && other.token <= token)) {
					violate("fencing tokens out of grant order on " + key + ": " + other + " granted at "
							+ other.grantedAt / 1000 + " us, " + grant + " granted at " + grant.grantedAt / 1000
							+ " us");
					return;
				}
			}
			holders.add(grant);
		}
	}

	/** A holder writes to a fenced store with its token; a stale token is refused. */
	void fencedWrite(Grant grant) {
		for (String key : grant.keys) {
			long highest = this.store.getOrDefault(key, Long.MIN_VALUE);
			if (grant.token < highest) {
				this.staleWritesRefused++;
				this.loop.trace(grant + " stale write refused by the store");
				return;
			}
			this.store.put(key, grant.token);
		}
	}

	/**
	 * A script about to be sent that extends or fences keys with {@code tokens}: none may
	 * belong to a lease released or lost more than {@code graceNanos} ago (a renewal
	 * already queued when the lease ended may still go out).
	 */
	void extending(String script, List<String> tokens, long graceNanos) {
		for (String token : tokens) {
			Grant grant = this.byToken.get(token);
			if (grant != null && grant.isOver()) {
				Long endedAt = grant.endedAt;
				if (endedAt == null) {
					grant.endedAt = this.loop.now();
				}
				else if (this.loop.now() - endedAt > graceNanos) {
					violate(grant + " renewed (" + script + ") " + (this.loop.now() - endedAt) / 1000
							+ " us after it was released or lost");
					return;
				}
			}
		}
	}

	/** An acquisition starts; it must end by {@code deadline} (true time). */
	void acquiring(String what, CompletableFuture<?> result, SimTimers clock, long slackNanos, SimLoop.Actor engine,
			long waitNanos) {
		this.acquisitions++;
		long startedAt = this.loop.now();
		watch(what, result, clock, engine, startedAt, clock.trueDelay(waitNanos + slackNanos));
	}

	/**
	 * Watched by the harness, not on the engine's own actor: a closed engine's events
	 * never run, and its acquisitions must have ended all the same.
	 */
	private void watch(String what, CompletableFuture<?> result, SimTimers clock, SimLoop.Actor engine, long startedAt,
			long within) {
		this.loop.at(within, null, () -> {
			if (result.isDone()) {
				return;
			}
			if (engine.paused) {
				// its events wait: look again later, from when it resumes
				watch(what, result, clock, engine, startedAt, within);
				return;
			}
			long resumedAt = engine.resumedAt;
			if (resumedAt > startedAt && this.loop.now() - resumedAt < within) {
				// the engine was paused meanwhile: give it the whole bound again
				watch(what, result, clock, engine, resumedAt, within - (this.loop.now() - resumedAt));
				return;
			}
			violate(what + " still not ended " + (this.loop.now() - startedAt) / 1_000_000 + " ms after it began"
					+ (engine.dead ? " (its engine closed)" : ""));
		});
	}

	/** The invariants over the holders valid now. */
	void check() {
		if (this.violation != null) {
			return;
		}
		List<Grant> valid = null;
		for (int i = this.active.size() - 1; i >= 0; i--) {
			Grant grant = this.active.get(i);
			if (grant.isOver()) {
				grant.endedAt = this.loop.now();
				this.active.remove(i);
				continue;
			}
			if (grant.isValid()) {
				if (valid == null) {
					valid = new ArrayList<>(4);
				}
				valid.add(grant);
			}
		}
		if (valid == null || valid.size() < 2) {
			return;
		}
		for (int i = 0; i < valid.size(); i++) {
			Grant a = valid.get(i);
			int sameBase = 1;
			for (int j = 0; j < valid.size(); j++) {
				if (i == j) {
					continue;
				}
				Grant b = valid.get(j);
				if (a.permits > 1 && b.permits > 1 && a.base().equals(b.base())) {
					sameBase++;
				}
				if (j < i) {
					continue;
				}
				for (String key : a.keys) {
					if (b.keys.contains(key) && (a.mode == LockMode.EXCLUSIVE || b.mode == LockMode.EXCLUSIVE)) {
						violate("two holders valid at once on " + key + ": " + a + " (" + a.lease.remaining().toMillis()
								+ " ms left) and " + b + " (" + b.lease.remaining().toMillis() + " ms left)");
						return;
					}
				}
			}
			if (a.permits > 1 && sameBase > a.permits) {
				violate(sameBase + " holders of " + a.permits + " permits valid at once on " + a.base());
				return;
			}
		}
	}

	/** Once all is closed and run out: no lock key may be left on any server. */
	void nothingLeft(String server, Map<String, Object> keys, String prefix) {
		for (String key : keys.keySet()) {
			if (key.startsWith(prefix) && !key.contains("quorumlock:") && !key.endsWith(":fence")) {
				violate("left held on " + server + " after every engine closed and every lease ran out: " + key + " = "
						+ keys.get(key));
				return;
			}
		}
	}

	List<Grant> grants() {
		return this.all;
	}

}
