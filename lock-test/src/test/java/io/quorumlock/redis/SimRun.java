package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.quorumlock.LockOptions;
import io.quorumlock.redis.node.RedisNode;
import io.quorumlock.redis.node.Script;

/**
 * One simulated schedule, a pure function of its seed: a few engines with different
 * settings ({@link SimWorkload} drives their callers) over 1, 3 or 5 simulated masters
 * ({@link SimServer}) and a simulated network ({@link SimNetwork}), with faults drawn
 * from the seed at random times: crashes and restarts (empty, or with the data of an
 * append-only file, the clock stepped), stalls, partitions, dropped connections (a reply
 * lost after its command ran), failovers behind an address (to a replica that lags,
 * perhaps restarted from its append-only file while it is held back, to a promoted copy,
 * or to another long-running server; the connections dropped or kept), a master resynced
 * from a lagging replica and failed back, {@code FLUSHALL}, {@code SCRIPT FLUSH},
 * eviction (on a master evicting from the start, or for a while on a live one), clock
 * steps, engine pauses longer than a lease, and engines closed. A teeth run undoes one of
 * the engine's protections ({@link SimTeeth}). The invariants of {@link SimHistory} are
 * checked after every event; at the end every engine is closed, every lease left to run
 * out, and no lock key may be left.
 */
final class SimRun {

	static final String PREFIX = "lock:";

	/** The masters' wall clocks at true time zero (2023-11-14), give or take 50 ms. */
	static final long WALL_EPOCH = 1_700_000_000_000_000_000L;

	/** What a schedule came to. */
	record Result(long seed, String violation, List<String> tail, long traceHash, List<String> trace, String summary,
			int handOvers) {

		boolean failed() {
			return this.violation != null;
		}

	}

	/** One engine of the run and its settings. */
	static final class Engine {

		final String name;

		final SimLoop.Actor actor;

		final SimTimers timers;

		final Duration lease;

		final Duration nodeTimeout;

		final long retryMaxNanos;

		final int syncReplicas;

		QuorumLockEngine engine;

		boolean closed;

		/** How long beyond its wait an acquisition retries rounds no answer decided. */
		long retryBudgetNanos;

		Engine(String name, SimLoop.Actor actor, SimTimers timers, Duration lease, Duration nodeTimeout,
				long retryMaxNanos, int syncReplicas) {
			this.name = name;
			this.actor = actor;
			this.timers = timers;
			this.lease = lease;
			this.nodeTimeout = nodeTimeout;
			this.retryMaxNanos = retryMaxNanos;
			this.syncReplicas = syncReplicas;
		}

		/**
		 * The longest a round of this engine takes (sync-replicas: write, WAIT, slack).
		 */
		long roundNanos() {
			long node = this.nodeTimeout.toNanos();
			return (this.syncReplicas == 0) ? node : 2 * node + 100_000_000L;
		}

	}

	final long seed;

	final SimLoop loop;

	final SimNetwork network;

	final SimHistory history;

	final List<SimServer> masters = new ArrayList<>();

	final List<String> addresses = new ArrayList<>();

	final List<Engine> engines = new ArrayList<>();

	/** Callers stop starting work at this true time; the run ends a little later. */
	final long workUntil;

	final double clockDriftFactor = 0.01;

	private final Random random;

	private final StringBuilder faults = new StringBuilder();

	/** The protection this run undoes ({@link SimTeeth#NONE}: none). */
	final SimTeeth undone;

	/** The rejoin delay of every engine of the run: the longest lease in use. */
	private long rejoinDelayNanos;

	private SimRun(long seed, boolean wholeTrace, SimTeeth undone) {
		this.seed = seed;
		this.undone = undone;
		this.loop = new SimLoop(seed, wholeTrace);
		this.random = this.loop.random;
		this.network = new SimNetwork(this.loop, 100_000, 1_500_000, 10, 60_000_000);
		this.history = new SimHistory(this.loop);
		this.network.history = this.history;
		this.workUntil = millis(1500 + this.random.nextInt(1500));
	}

	static long millis(long millis) {
		return millis * 1_000_000L;
	}

	/** Run the schedule of {@code seed}. */
	static Result run(long seed, boolean wholeTrace) {
		return run(seed, wholeTrace, SimTeeth.NONE);
	}

	/** Run the schedule of {@code seed} with one of the engine's protections undone. */
	static Result run(long seed, boolean wholeTrace, SimTeeth undone) {
		SimRun run = new SimRun(seed, wholeTrace, undone);
		String summary;
		try {
			run.build();
			new SimWorkload(run).start();
			run.faults();
			run.loop.afterEach(run.history::check);
			run.loop.runUntil(run.workUntil + millis(1000));
			run.end();
			summary = run.summary();
		}
		catch (RuntimeException | AssertionError ex) {
			run.history.violate("the run threw " + ex);
			summary = run.summary();
		}
		return new Result(seed, run.history.violation(), run.loop.tail(), run.loop.traceHash(), run.loop.wholeTrace(),
				summary, run.handOvers());
	}

	/** Releases the masters handed to a queued waiter. */
	private int handOvers() {
		int sum = 0;
		for (SimServer server : this.masters) {
			sum += server.handOvers;
		}
		return sum;
	}

	private String summary() {
		return this.masters.size() + " masters, " + this.engines.size() + " engines, " + this.history.acquisitions
				+ " acquisitions, " + this.history.granted + " granted, " + this.history.tokens + " fencing tokens, "
				+ this.history.staleWritesRefused + " stale writes refused, " + this.loop.events() + " events; faults:"
				+ this.faults;
	}

	private void build() {
		int roll = this.random.nextInt(100);
		// one master in almost a third: the path where releases hand over to queued
		// waiters
		int count = (roll < 30) ? 1 : (roll < 80) ? 3 : 5;
		int evicting = (count > 1 && this.random.nextInt(10) == 0) ? this.random.nextInt(count) : -1;
		for (int i = 0; i < count; i++) {
			String address = "sim-" + i + ":7000";
			SimServer server = newServer("s" + i, (i == evicting) ? "volatile-lru" : "noeviction");
			this.masters.add(server);
			this.addresses.add(address);
			this.network.route(address, server);
			// masters that served these engines before: their marker vetted this process
			server.call("HSET", PREFIX + "{quorumlock:marker}", "id", "dataset-" + i, "guard", "0", "vetted",
					server.runId());
			snapshots(server);
			if (count > 1 && this.random.nextInt(4) != 0) {
				attachReplica(server);
			}
		}
		int engineCount = 2 + this.random.nextInt(2);
		long[] choices = { 300, 600, 1200 };
		Duration[] leases = new Duration[engineCount];
		Duration longest = Duration.ZERO;
		for (int i = 0; i < engineCount; i++) {
			leases[i] = Duration.ofMillis(choices[this.random.nextInt(choices.length)]);
			longest = (leases[i].compareTo(longest) > 0) ? leases[i] : longest;
		}
		this.rejoinDelayNanos = longest.toNanos();
		for (int i = 0; i < engineCount; i++) {
			// one rejoin delay on every client of these masters, at least every lease in
			// use; or, now and then, an engine's own lease only (an older version during
			// a rolling deploy): it adopts the longer guard the others record
			buildEngine("e" + i, leases[i], (this.random.nextInt(4) == 0) ? leases[i] : longest);
		}
		this.loop.trace("seed " + this.seed + ": " + count + " masters"
				+ ((evicting >= 0) ? " (s" + evicting + " evicting)" : "") + ", engines "
				+ this.engines.stream()
					.map((e) -> e.name + "(lease " + e.lease.toMillis() + " ms, node timeout "
							+ e.nodeTimeout.toMillis() + " ms" + ((e.syncReplicas > 0) ? ", sync-replicas" : "") + ")")
					.toList());
	}

	/** A simulated server of this run, append-only or not. */
	private SimServer newServer(String name, String evictionPolicy) {
		SimServer server = new SimServer(name, this.loop, serverWallOffset(), drift(), evictionPolicy, 1,
				this.random.nextBoolean());
		server.undone = this.undone;
		return server;
	}

	/**
	 * A replica for {@code server} (three masters in four have one), whose stream brings
	 * each change up to half a second late (a replica that lags, as under load or across
	 * a slow link), or at once.
	 */
	private void attachReplica(SimServer server) {
		SimServer replica = newServer(server.name + "r", "noeviction");
		long lag = (this.random.nextInt(4) == 0) ? 0 : (long) (this.random.nextDouble() * millis(500));
		server.attach(replica, lag);
		this.loop.trace(replica.name + " replicates " + server.name + ", " + lag / 1_000_000 + " ms behind");
	}

	/**
	 * A server snapshots its data every 400 ms or so (what a restart without AOF brings
	 * back).
	 */
	private void snapshots(SimServer server) {
		this.loop.at(millis(200) + (long) (this.random.nextDouble() * millis(400)), null, () -> {
			if (server.isRunning()) {
				server.save();
			}
			if (this.loop.now() < this.workUntil) {
				snapshots(server);
			}
		});
	}

	/**
	 * The masters' wall clocks agree within 50 ms (NTP), as the fencing counters' seeds
	 * from {@code TIME} assume: a counter brought up to a master's clock after a loss
	 * must start above tokens issued from another master's clock at least a rejoin delay
	 * before, so the clocks must agree within the rejoin delay. A master restarted empty
	 * may come back stepped forward, by less than half of it.
	 */
	private long serverWallOffset() {
		return WALL_EPOCH + (long) (this.random.nextDouble() * millis(50));
	}

	/** A clock rate within a quarter of the drift factor, in parts per million. */
	private long drift() {
		long bound = (long) (this.clockDriftFactor * 1e6 / 4);
		return -bound + (long) (this.random.nextDouble() * 2 * bound);
	}

	private void buildEngine(String name, Duration lease, Duration rejoinDelay) {
		long[] nodeTimeouts = { 20, 40, 60, 90 };
		Duration nodeTimeout = Duration.ofMillis(nodeTimeouts[this.random.nextInt(nodeTimeouts.length)]);
		Duration retryMin = Duration.ofMillis(5 + this.random.nextInt(15));
		Duration retryMax = Duration.ofMillis(40 + this.random.nextInt(120));
		int syncReplicas = (this.masters.size() > 0 && this.random.nextInt(6) == 0) ? 1 : 0;
		SimLoop.Actor actor = new SimLoop.Actor(name);
		long offset = this.random.nextLong();
		SimTimers timers = new SimTimers(this.loop, actor, offset, drift(), retryMin.toNanos(), retryMax.toNanos());
		Engine engine = new Engine(name, actor, timers, lease, nodeTimeout, retryMax.toNanos(), syncReplicas);
		// rounds that no answer decided are retried within this budget, even without a
		// wait
		long[] budgets = { 0, 100, 300, 1000 };
		Duration retryBudget = Duration.ofMillis(budgets[this.random.nextInt(budgets.length)]);
		engine.retryBudgetNanos = retryBudget.toNanos();
		long commandTimeout = Math.max(nodeTimeout.toNanos() * 10, millis(1000));
		QuorumLockEngine.Builder builder = QuorumLockEngine.builder()
			.nodes(this.addresses.stream().map((a) -> "redis://" + a).toList())
			.nodeTimeout(nodeTimeout)
			.clockDriftFactor(this.clockDriftFactor)
			.retryDelay(retryMin, retryMax)
			.retryBudget(retryBudget)
			.defaults(LockOptions.none().lease(lease))
			.syncReplicas(syncReplicas);
		if (this.masters.size() > 1) {
			builder.rejoinDelay(rejoinDelay);
		}
		if (this.undone == SimTeeth.EVICTION_IS_A_LOSS) {
			builder.allowEvictingMasters(true);
		}
		EngineRuntime runtime = new EngineRuntime(timers, (task) -> this.loop.at(0, actor, task),
				new Random(this.random.nextLong()), (uri) -> new SimTransport(this.network, timers, name,
						uri.getHost() + ":" + uri.getPort(), commandTimeout, 300_000));
		engine.engine = builder.build(runtime);
		this.engines.add(engine);
	}

	// ---- faults ----

	/**
	 * One to eight faults at random times; in a third of the schedules, all within half a
	 * second (a burst), so that faults that only hurt together (a loss on a master while
	 * another was out of a holder's quorum, two losses within a lease) meet often.
	 */
	private void faults() {
		int count = 1 + this.random.nextInt(8);
		long from = millis(300);
		long window = this.workUntil - from;
		if (this.random.nextInt(3) == 0) {
			window = millis(500);
			from += (long) (this.random.nextDouble() * (this.workUntil - from - window));
		}
		for (int i = 0; i < count; i++) {
			long at = from + (long) (this.random.nextDouble() * window);
			this.loop.at(at, null, this::fault);
		}
	}

	private void note(String fault) {
		this.faults.append(' ').append(fault).append(';');
		this.loop.trace("FAULT " + fault);
	}

	private void fault() {
		boolean quorum = this.masters.size() > 1;
		int which = this.random.nextInt(this.addresses.size());
		String address = this.addresses.get(which);
		SimServer server = this.network.server(address);
		Engine engine = this.engines.get(this.random.nextInt(this.engines.size()));
		long duration = millis(5) + (long) (this.random.nextDouble() * millis(1500));
		switch (this.random.nextInt(quorum ? 19 : 9)) {
			case 0 -> stall(server, duration);
			case 1 -> partition(engine, address, duration);
			case 2 -> dropConnection(address, false);
			case 3 -> dropConnection(address, true);
			case 4 -> pause(engine, millis(5) + (long) (this.random.nextDouble() * 2.5 * engine.lease.toNanos()));
			case 5 -> restart(address, server, duration, true);
			case 6 -> {
				note("SCRIPT FLUSH on " + server.name);
				server.call("SCRIPT", "FLUSH");
			}
			case 7 -> stepClock(server, false);
			case 8 -> close(engine);
			case 9 -> restart(address, server, duration, false);
			case 10 -> {
				note("FLUSHALL on " + server.name);
				server.call("FLUSHALL");
			}
			case 11, 15 -> failover(address, server);
			case 12 -> pressure(server, 1 + this.random.nextInt(3));
			case 16 -> evictingForAWhile(server);
			case 17 -> promoteReplica(address, server);
			case 18 -> resyncAndFailBack(server);
			default -> restart(address, server, duration, true);
		}
	}

	private void stall(SimServer server, long duration) {
		if (server.isStalled() || !server.isRunning()) {
			return;
		}
		note("stall " + server.name + " for " + duration / 1_000_000 + " ms");
		this.loop.pause(server.actor);
		this.loop.at(duration, null, () -> {
			if (server.isStalled()) {
				this.loop.trace("resume " + server.name);
				this.loop.resume(server.actor);
			}
		});
	}

	private void partition(Engine engine, String address, long duration) {
		if (this.network.partitioned(engine.name, address)) {
			return;
		}
		boolean reset = this.random.nextInt(3) == 0;
		note("partition " + engine.name + " from " + address + " for " + duration / 1_000_000 + " ms"
				+ (reset ? ", then reset" : ""));
		this.network.partition(engine.name, address);
		this.loop.at(duration, null, () -> {
			this.loop.trace("heal " + engine.name + " / " + address);
			this.network.heal(engine.name, address, reset);
		});
	}

	private void dropConnection(String address, boolean afterNextCommand) {
		List<SimTransport.Connection> open = this.network.open(address);
		if (open.isEmpty()) {
			return;
		}
		SimTransport.Connection connection = open.get(this.random.nextInt(open.size()));
		if (afterNextCommand) {
			note("drop " + connection + " after its next command runs (reply lost)");
			connection.dropAfterNextCommand();
		}
		else {
			note("drop " + connection);
			connection.reset("dropped");
		}
	}

	private void pause(Engine engine, long duration) {
		if (engine.actor.paused || engine.closed) {
			return;
		}
		note("pause " + engine.name + " for " + duration / 1_000_000 + " ms (lease " + engine.lease.toMillis()
				+ " ms)");
		this.loop.pause(engine.actor);
		this.loop.at(duration, null, () -> {
			this.loop.trace("resume " + engine.name);
			this.loop.resume(engine.actor);
		});
	}

	/**
	 * Crash, then restart after {@code down}: with its data (from its append-only file,
	 * fsync'd on every write, the clock perhaps stepped back; or, in quorum mode only,
	 * from its last snapshot, without the writes since) or, in quorum mode only, empty
	 * (the clock perhaps stepped forward: never back across a restart that lost the
	 * fencing counters).
	 */
	private void restart(String address, SimServer server, long down, boolean keepData) {
		if (!server.isRunning() || (keepData && !server.isAppendOnly() && this.masters.size() == 1)) {
			return;
		}
		boolean everyWrite = keepData && server.isAppendOnly();
		Map<String, Object[]> data = !keepData ? null : everyWrite ? server.snapshot() : server.lastSave();
		note("crash " + server.name + ", restart "
				+ (!keepData ? "empty" : everyWrite ? "from its append-only file" : "from its last snapshot")
				+ " after " + down / 1_000_000 + " ms");
		server.crash();
		this.network.crashed(server);
		this.loop.at(down, null, () -> {
			long step = 0;
			if (this.random.nextBoolean()) {
				step = keepData ? -(long) (this.random.nextDouble() * millis(1000))
						: (long) (this.random.nextDouble() * this.rejoinDelayNanos / 2);
				server.stepClock(step);
			}
			server.restart(keepData, data);
			this.loop.trace("restart " + server.name + " (run_id " + server.runId().substring(0, 6) + ", clock stepped "
					+ step / 1_000_000 + " ms)");
		});
	}

	private void stepClock(SimServer server, boolean forward) {
		long step = forward ? (long) (this.random.nextDouble() * millis(1))
				: -(long) (this.random.nextDouble() * millis(1000));
		note("step " + server.name + "'s clock by " + step / 1_000 + " us");
		server.stepClock(step);
	}

	private void close(Engine engine) {
		if (engine.closed) {
			return;
		}
		note("close " + engine.name);
		closeEngine(engine);
	}

	void closeEngine(Engine engine) {
		if (engine.actor.paused) {
			this.loop.resume(engine.actor);
		}
		engine.closed = true;
		engine.engine.close();
		engine.actor.dead = true;
	}

	/**
	 * The address starts reaching another server: its replica promoted (all the data it
	 * received; or, without one, a copy of all the data or of the last snapshot, as a
	 * replica that lags), or another long-running server (empty, or with a dataset marker
	 * of its own); or the master is resynced from a lagging replica and failed back.
	 */
	private void failover(String address, SimServer server) {
		int kind = this.random.nextInt(4);
		if (kind == 3) {
			resyncAndFailBack(server);
			return;
		}
		if (kind == 0 && server.replica() != null) {
			promoteReplica(address, server);
			return;
		}
		SimServer other = newServer(server.name + "'", "noeviction");
		if (kind == 0) {
			// a replica promoted: all the data, or its last snapshot (a replica that
			// lags)
			other.restart(true, this.random.nextBoolean() ? server.snapshot() : server.lastSave());
			other.promoted();
		}
		else if (kind == 2) {
			other.call("HSET", PREFIX + "{quorumlock:marker}", "id", "another-dataset", "guard", "60000");
		}
		if (kind != 0) {
			other.backdateStart(millis(3_600_000)); // long-running
		}
		switchTo(address, other,
				(kind == 0) ? "a promoted copy" : (kind == 1) ? "another server, empty" : "another server's dataset");
	}

	/**
	 * The address starts reaching the server's replica, promoted: what its stream had not
	 * brought it yet is lost. A promoted replica with an append-only file may then crash
	 * and restart from it, within the guard's hold-back; it may get a replica of its own.
	 */
	private void promoteReplica(String address, SimServer server) {
		SimServer replica = server.replica();
		if (replica == null || this.network.server(address) != server) {
			return;
		}
		long lag = server.replicaLag();
		int lost = replica.promote();
		switchTo(address, replica,
				"its replica promoted, " + lag / 1_000_000 + " ms behind, " + lost + " changes lost");
		if (replica.isAppendOnly() && this.random.nextInt(4) != 0) {
			long at = (long) (this.random.nextDouble() * this.rejoinDelayNanos);
			long down = millis(5) + (long) (this.random.nextDouble() * millis(50));
			this.loop.at(at, null, () -> {
				if (this.network.server(address) == replica && replica.isRunning()) {
					restart(address, replica, down, true);
				}
			});
		}
		if (this.random.nextBoolean()) {
			attachReplica(replica);
		}
	}

	/**
	 * The address reaches {@code other} from now on; the connections are reset, or kept
	 * open (a proxy, a managed endpoint), and then, half the time, another client of the
	 * library loaded the same scripts there first, so that no NOSCRIPT tells the switch.
	 */
	private void switchTo(String address, SimServer other, String what) {
		boolean keep = this.random.nextBoolean();
		boolean loaded = keep && this.random.nextBoolean();
		if (loaded) {
			for (Script script : RedisNode.SCRIPTS) {
				other.call("SCRIPT", "LOAD", script.text());
			}
		}
		note("failover behind " + address + " to " + other.name + " (" + what
				+ (keep ? ", connections kept" + (loaded ? ", scripts loaded by another client" : "") : "") + ")");
		this.network.repoint(address, other, keep);
		snapshots(other);
	}

	/**
	 * The master's replica is promoted elsewhere, the master demoted and resynced from it
	 * (its data replaced by the replica's, which lags, the marker with it), and after a
	 * while failed back: the same process, scripts and connections throughout, a replica
	 * ({@code role:slave}, read-only) meanwhile, another replication history after. The
	 * former replica follows it again.
	 */
	private void resyncAndFailBack(SimServer server) {
		SimServer replica = server.replica();
		if (replica == null || !server.isRunning()) {
			return;
		}
		long lag = server.replicaLag();
		int lost = replica.promote();
		server.resyncFrom(replica, 0);
		long back = millis(20) + (long) (this.random.nextDouble() * millis(800));
		note("resync of " + server.name + " from its replica " + replica.name + " (" + lag / 1_000_000 + " ms behind, "
				+ lost + " changes lost), failback in " + back / 1_000_000 + " ms");
		this.loop.at(back, null, () -> {
			if (server.isReplica()) {
				server.promote();
				server.attach(replica, lag);
				this.loop.trace("failback: " + server.name + " is a master again");
			}
		});
	}

	/**
	 * An eviction policy set on a live master, memory pressure now and then, and back to
	 * {@code noeviction}: keys are evicted only once an engine has read the policy and
	 * acted on what it read ({@link SimServer#evictionRead}), since the engines read a
	 * master's state every second and keys evicted before that are outside their promise;
	 * after the last read that saw the policy and before it is set back, some may be
	 * evicted still.
	 */
	private void evictingForAWhile(SimServer server) {
		if (server.isEvicting() || !server.isRunning()) {
			return;
		}
		long until = millis(300) + (long) (this.random.nextDouble() * millis(3000));
		note("maxmemory-policy volatile-lru on " + server.name + " for " + until / 1_000_000 + " ms");
		server.evictionPolicy("volatile-lru");
		int pressures = 1 + this.random.nextInt(4);
		for (int i = 0; i < pressures; i++) {
			long at = (long) (this.random.nextDouble() * until);
			int count = 1 + this.random.nextInt(3);
			this.loop.at(at, null, () -> pressure(server, count));
		}
		this.loop.at(until, null, () -> {
			if (server.isEvicting()) {
				note("maxmemory-policy noeviction on " + server.name + " again");
				server.evictionPolicy("noeviction");
			}
		});
	}

	/**
	 * Memory pressure on a master with an eviction policy: evicts only once an engine has
	 * read the policy and acted on it, whichever fault brings it, for the reason
	 * {@link #evictingForAWhile} gives. Keyed on what an engine read, not on what it did
	 * about it, so that an engine that does nothing about it is caught.
	 */
	private void pressure(SimServer server, int count) {
		if (!server.isEvicting() || !server.isRunning() || !server.isEvictionRead()) {
			this.loop.trace("memory pressure on " + server.name + " skipped: no engine acted on its policy yet");
			return;
		}
		List<String> evicted = server.evict(count);
		note("memory pressure on " + server.name
				+ ((evicted.isEmpty()) ? ": nothing to evict" : ", evicted " + evicted));
	}

	// ---- the end ----

	/**
	 * Heal everything, close every engine, let every lease run out, and look for lock
	 * keys left behind.
	 */
	private void end() {
		if (this.history.violation() != null) {
			return;
		}
		this.loop.trace("END: heal, close every engine, let every lease run out");
		for (Engine engine : this.engines) {
			if (engine.actor.paused) {
				this.loop.resume(engine.actor);
			}
			for (String address : this.addresses) {
				if (this.network.partitioned(engine.name, address)) {
					this.network.heal(engine.name, address, false);
				}
			}
		}
		for (SimServer server : this.network.routes().values()) {
			if (server.isStalled()) {
				this.loop.resume(server.actor);
			}
		}
		this.loop.runUntil(this.loop.now() + millis(200));
		for (Engine engine : this.engines) {
			if (!engine.closed) {
				closeEngine(engine);
			}
		}
		long longest = this.engines.stream().mapToLong((e) -> e.lease.toNanos()).max().orElse(0);
		this.loop.runUntil(this.loop.now() + 2 * longest + millis(1000));
		this.network.routes().forEach((address, server) -> {
			if (server.isRunning()) {
				this.history.nothingLeft(server.name, server.liveKeys(), PREFIX);
			}
		});
	}

}
