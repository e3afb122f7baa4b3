package io.quorumlock.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * A simulated Redis server: one process at a time behind it (a crash ends the process, a
 * restart starts a new one, empty or with its data as from an append-only file), an
 * in-memory key space of strings and hashes whose millisecond expiries are judged by the
 * server's own wall clock (true time at its own rate, plus steps), a script cache that a
 * restart or {@code SCRIPT FLUSH} empties, and the engine's Lua scripts run as text
 * ({@link SimLua}). Commands run at once, atomically, when the network hands them over;
 * while the server is stalled (SIGSTOP) the network holds them.
 * <p>
 * Replication: a replica attached to a master ({@link #attach}) gets a full copy, then
 * every change of a key (the effects of scripts, as Redis 7 replicates them, evictions
 * included) a fixed lag after the master made it; until its stream reaches it, a change
 * is not on the replica. A replica reports {@code role:slave} and its master's
 * replication id, and refuses writes ({@code READONLY}); promoted ({@link #promote}), it
 * keeps what reached it, loses the rest, and reports its former master's id as
 * {@code master_replid2} and a new {@code master_replid}, as Redis does.
 * <p>
 * Replies: {@code String} (bulk), {@link Status}, {@code Long}, {@code List} (an array,
 * null elements for nil), null (nil), {@link Err} (an error reply).
 */
final class SimServer {

	/** A status reply, such as {@code +OK}. */
	record Status(String text) {
	}

	/**
	 * An error reply; its text starts with the error code ({@code ERR},
	 * {@code NOSCRIPT}...).
	 */
	record Err(String text) {
	}

	static final Status OK = new Status("OK");

	static final Err WRONGTYPE = new Err("WRONGTYPE Operation against a key holding the wrong kind of value");

	static final Err NOT_AN_INTEGER = new Err("ERR value is not an integer or out of range");

	static final Err NOSCRIPT = new Err("NOSCRIPT No matching script. Please use EVAL.");

	/**
	 * One key's value (a {@code String} or a hash) and its expiry in server ms, or -1.
	 */
	private static final class Entry {

		Object value;

		long expireAt = -1;

		Entry(Object value) {
			this.value = value;
		}

	}

	final String name;

	private final SimLoop loop;

	final SimLoop.Actor actor;

	/** Wall clock at true time zero, in nanoseconds since the epoch. */
	private long wallOffset;

	private final long driftPpm;

	private LinkedHashMap<String, Entry> data = new LinkedHashMap<>();

	private final Map<String, String> scripts = new HashMap<>();

	/** Pub/sub: channel to its subscribers (connections), in subscription order. */
	private final Map<String, List<BiConsumer<String, String>>> subscribers = new HashMap<>();

	/**
	 * Releases that handed their key to a queued waiter's token, published to
	 * subscribers.
	 */
	int handOvers;

	private String runId;

	private long startedWallMillis;

	private boolean running = true;

	/** Bumped on every process start: connections to an older process are gone. */
	private int process;

	/** maxmemory-policy, with a limit; "noeviction" means none. */
	private String evictionPolicy;

	/** {@code evicted_keys}: counted since the process started. */
	private long evictedKeys;

	/** What {@code WAIT} answers. */
	private int replicas;

	/**
	 * Whether it keeps an append-only file, fsync'd on every write
	 * ({@code appendfsync always}).
	 */
	private final boolean appendOnly;

	/**
	 * {@code master_replid}: drawn anew at every start of a process and at a promotion,
	 * as Redis does.
	 */
	private String replid;

	/**
	 * {@code master_replid2}: set on a replica promoted to master (its former master's
	 * id); zeros after a restart, which Redis 7.0 does not carry over from an append-only
	 * file.
	 */
	private String replid2 = NO_REPLID;

	private static final String NO_REPLID = "0000000000000000000000000000000000000000";

	/** The last snapshot ({@code BGSAVE}), what a restart from it brings back. */
	private Map<String, Object[]> lastSave = new LinkedHashMap<>();

	/** Commands run, for the trace. */
	private long commands;

	/** The master this server replicates, while it is a replica; else null. */
	private SimServer master;

	/** This master's replicas, each with its stream. */
	private final List<Stream> replicaStreams = new ArrayList<>();

	/**
	 * Whether an engine that read this server's eviction policy has acted on it since
	 * (see {@link #evictionRead}); reset when the policy changes.
	 */
	private boolean evictionRead;

	/** Bumped at every change of the eviction policy. */
	private int policyChanges;

	/** The protection a teeth run undoes, or {@link SimTeeth#NONE}. */
	SimTeeth undone = SimTeeth.NONE;

	/**
	 * A replica's replication stream: key changes, each with the true time it reaches the
	 * replica, in order.
	 */
	private static final class Stream {

		final SimServer replica;

		final long lagNanos;

		final ArrayDeque<Object[]> pending = new ArrayDeque<>();

		Stream(SimServer replica, long lagNanos) {
			this.replica = replica;
			this.lagNanos = lagNanos;
		}

	}

	private static final Set<String> WRITES = Set.of("set", "del", "pexpire", "incr", "hset", "hdel", "flushall");

	private static final Err READONLY = new Err("READONLY You can't write against a read only replica.");

	SimServer(String name, SimLoop loop, long wallOffsetNanos, long driftPpm, String evictionPolicy, int replicas) {
		this(name, loop, wallOffsetNanos, driftPpm, evictionPolicy, replicas, false);
	}

	SimServer(String name, SimLoop loop, long wallOffsetNanos, long driftPpm, String evictionPolicy, int replicas,
			boolean appendOnly) {
		this.appendOnly = appendOnly;
		this.name = name;
		this.loop = loop;
		this.actor = new SimLoop.Actor(name);
		this.wallOffset = wallOffsetNanos;
		this.driftPpm = driftPpm;
		this.evictionPolicy = evictionPolicy;
		this.replicas = replicas;
		start();
	}

	private void start() {
		this.process++;
		this.runId = hex(20);
		this.replid = hex(20);
		this.replid2 = NO_REPLID;
		this.startedWallMillis = wallMillis();
		this.evictedKeys = 0;
		this.scripts.clear();
		this.subscribers.clear();
		this.running = true;
	}

	private String hex(int bytes) {
		StringBuilder sb = new StringBuilder(bytes * 2);
		for (int i = 0; i < bytes; i++) {
			sb.append(String.format("%02x", this.loop.random.nextInt(256)));
		}
		return sb.toString();
	}

	// ---- the process ----

	String runId() {
		return this.runId;
	}

	int process() {
		return this.process;
	}

	boolean isRunning() {
		return this.running;
	}

	boolean isStalled() {
		return this.actor.paused;
	}

	/**
	 * The process dies: its data, scripts and subscribers with it, and what its replicas'
	 * streams had not brought them yet; they keep the rest.
	 */
	void crash() {
		for (Stream stream : this.replicaStreams) {
			catchUp(stream);
			stream.pending.clear();
		}
		this.running = false;
		this.data = new LinkedHashMap<>();
		this.scripts.clear();
		this.subscribers.clear();
		if (this.actor.paused) {
			this.loop.resume(this.actor);
		}
	}

	/** A new process starts, empty or with the data it had (an append-only file). */
	void restart(boolean keepData, Map<String, Object[]> appendOnly) {
		start();
		restore(keepData, appendOnly);
		if (this.master != null) {
			// a replica resyncs from its master
			restore(this.master.snapshot());
		}
		// its replicas resync from the new process: a full copy of what it has
		for (Stream stream : this.replicaStreams) {
			stream.replica.restore(snapshot());
		}
	}

	private void restore(boolean keepData, Map<String, Object[]> appendOnly) {
		if (keepData && appendOnly != null) {
			restore(appendOnly);
			if (this.undone == SimTeeth.SUSPICION_ON_THE_MASTER) {
				// as if what the guard suspects lived only in the engines' memory
				Entry marker = this.data.get(SimRun.PREFIX + "{quorumlock:marker}");
				if (marker != null && marker.value instanceof Map<?, ?> hash) {
					hash.remove("suspect");
					hash.remove("replicated");
				}
			}
		}
	}

	/** What an append-only file would bring back: every key with its absolute expiry. */
	Map<String, Object[]> snapshot() {
		Map<String, Object[]> copy = new LinkedHashMap<>();
		this.data.forEach((key, entry) -> {
			Object value = (entry.value instanceof LinkedHashMap<?, ?> hash) ? new LinkedHashMap<>(hash) : entry.value;
			copy.put(key, new Object[] { value, entry.expireAt });
		});
		return copy;
	}

	@SuppressWarnings("unchecked")
	private void restore(Map<String, Object[]> snapshot) {
		this.data = new LinkedHashMap<>();
		snapshot.forEach((key, saved) -> {
			Object value = (saved[0] instanceof LinkedHashMap<?, ?> hash)
					? new LinkedHashMap<>((Map<String, String>) hash) : saved[0];
			Entry entry = new Entry(value);
			entry.expireAt = (Long) saved[1];
			this.data.put(key, entry);
		});
	}

	/** A server that has been up for a while already. */
	void backdateStart(long nanos) {
		this.startedWallMillis -= nanos / 1_000_000;
	}

	boolean isAppendOnly() {
		return this.appendOnly;
	}

	/** A snapshot now ({@code BGSAVE}): what a restart from it would bring back. */
	void save() {
		this.lastSave = snapshot();
	}

	Map<String, Object[]> lastSave() {
		return this.lastSave;
	}

	/**
	 * A replica promoted to master without a master of its own (a copy made elsewhere):
	 * its {@code master_replid2} names the history it followed.
	 */
	void promoted() {
		this.replid2 = this.replid;
		this.replid = hex(20);
	}

	/**
	 * Attach {@code replica}: a full copy of this master's data now, then the changes a
	 * lag after they are made here.
	 */
	void attach(SimServer replica, long lagNanos) {
		replica.detach();
		replica.restore(snapshot());
		replica.master = this;
		replica.replid = this.replid;
		replica.replid2 = NO_REPLID;
		this.replicaStreams.add(new Stream(replica, lagNanos));
	}

	/** Whether a replica is attached, and the first one; else null. */
	SimServer replica() {
		return this.replicaStreams.isEmpty() ? null : this.replicaStreams.get(0).replica;
	}

	/** How far the first replica lags, in nanoseconds; -1 without one. */
	long replicaLag() {
		return this.replicaStreams.isEmpty() ? -1 : this.replicaStreams.get(0).lagNanos;
	}

	boolean isReplica() {
		return this.master != null;
	}

	/**
	 * Promoted to master (a failover): the changes its stream brought so far stay, the
	 * rest is lost; {@code master_replid2} is its former master's replication id, and it
	 * draws a new one. Its scripts, connections and process stay.
	 * @return the changes lost
	 */
	int promote() {
		int lost = 0;
		String followed = (this.master != null) ? this.master.replid : this.replid;
		if (this.master != null) {
			Stream stream = this.master.streamOf(this);
			catchUp(stream);
			lost = stream.pending.size();
			this.master.replicaStreams.remove(stream);
			this.master = null;
		}
		this.replid2 = followed;
		this.replid = hex(20);
		return lost;
	}

	/** No longer a replica of anyone (its master gone, or it is re-attached). */
	private void detach() {
		if (this.master != null) {
			this.master.replicaStreams.remove(this.master.streamOf(this));
			this.master = null;
		}
	}

	private Stream streamOf(SimServer replica) {
		for (Stream stream : this.replicaStreams) {
			if (stream.replica == replica) {
				return stream;
			}
		}
		throw new IllegalStateException(replica + " is no replica of " + this);
	}

	/** Apply what reached the replica of {@code stream} by now. */
	private void catchUp(Stream stream) {
		long now = this.loop.now();
		while (!stream.pending.isEmpty() && (Long) stream.pending.peek()[0] <= now) {
			Object[] change = stream.pending.poll();
			stream.replica.apply((String) change[1], change[2], (Long) change[3]);
		}
	}

	/** Send a key's state now to every replica (null key: every key went). */
	private void replicate(String key) {
		if (this.replicaStreams.isEmpty()) {
			return;
		}
		Object value = null;
		long expireAt = -1;
		Entry entry = (key != null) ? this.data.get(key) : null;
		if (entry != null) {
			value = (entry.value instanceof LinkedHashMap<?, ?> hash) ? new LinkedHashMap<>(hash) : entry.value;
			expireAt = entry.expireAt;
		}
		for (Stream stream : this.replicaStreams) {
			catchUp(stream);
			stream.pending.add(new Object[] { this.loop.now() + stream.lagNanos, key, value, expireAt });
		}
	}

	@SuppressWarnings("unchecked")
	private void apply(String key, Object value, long expireAt) {
		if (key == null) {
			this.data = new LinkedHashMap<>();
			return;
		}
		if (value == null) {
			this.data.remove(key);
			return;
		}
		Entry entry = new Entry(
				(value instanceof LinkedHashMap<?, ?> hash) ? new LinkedHashMap<>((Map<String, String>) hash) : value);
		entry.expireAt = expireAt;
		this.data.put(key, entry);
	}

	/**
	 * Demoted to a replica of {@code other} and resynced from it (its data replaced by a
	 * full copy of the other's, the marker with it): the same process, scripts and
	 * connections; it reports {@code role:slave} until promoted again ({@link #promote},
	 * a failback).
	 */
	void resyncFrom(SimServer other, long lagNanos) {
		other.attach(this, lagNanos);
	}

	/** Step the wall clock (NTP, an operator, a VM migration). */
	void stepClock(long nanos) {
		this.wallOffset += nanos;
	}

	void replicas(int replicas) {
		this.replicas = replicas;
	}

	/** The server's wall clock, nanoseconds since the epoch. */
	long wallNanos() {
		long t = this.loop.now();
		return this.wallOffset + t + (long) (t * (this.driftPpm / 1e6));
	}

	long wallMillis() {
		return Math.floorDiv(wallNanos(), 1_000_000L);
	}

	boolean isEvicting() {
		return !"noeviction".equals(this.evictionPolicy);
	}

	/**
	 * {@code CONFIG SET maxmemory-policy}, with a memory limit unless {@code noeviction}.
	 */
	void evictionPolicy(String policy) {
		this.evictionPolicy = policy;
		this.evictionRead = false;
		this.policyChanges++;
	}

	/** How many times the eviction policy changed: names the policy in force. */
	int policyChanges() {
		return this.policyChanges;
	}

	/**
	 * An engine that was told this server's eviction policy ran a guard script here
	 * since: it has acted on what it read (recorded a loss, or, where evicting masters
	 * are accepted, read again).
	 */
	void evictionRead() {
		if (isEvicting()) {
			this.evictionRead = true;
		}
	}

	/** Whether an engine acted on this server's eviction policy since it was set. */
	boolean isEvictionRead() {
		return this.evictionRead;
	}

	/**
	 * Memory pressure: evict up to {@code count} keys that have a TTL, as volatile-lru
	 * does, where the policy allows it.
	 * @return the keys evicted
	 */
	List<String> evict(int count) {
		List<String> evicted = new ArrayList<>();
		if (!isEvicting()) {
			return evicted;
		}
		List<String> volatileKeys = new ArrayList<>();
		this.data.forEach((key, entry) -> {
			if (entry.expireAt >= 0) {
				volatileKeys.add(key);
			}
		});
		for (int i = 0; i < count && !volatileKeys.isEmpty(); i++) {
			String key = volatileKeys.remove(this.loop.random.nextInt(volatileKeys.size()));
			this.data.remove(key);
			this.evictedKeys++;
			evicted.add(key);
			replicate(key);
		}
		return evicted;
	}

	/** Subscribe a connection; it is told every message published on the channel. */
	void subscribe(String channel, BiConsumer<String, String> connection) {
		List<BiConsumer<String, String>> list = this.subscribers.computeIfAbsent(channel, (c) -> new ArrayList<>());
		if (!list.contains(connection)) {
			list.add(connection);
		}
	}

	void unsubscribe(String channel, BiConsumer<String, String> connection) {
		List<BiConsumer<String, String>> list = this.subscribers.get(channel);
		if (list != null) {
			list.remove(connection);
			if (list.isEmpty()) {
				this.subscribers.remove(channel);
			}
		}
	}

	long commands() {
		return this.commands;
	}

	// ---- the key space ----

	private Entry live(String key) {
		Entry entry = this.data.get(key);
		if (entry != null && entry.expireAt >= 0 && wallMillis() > entry.expireAt) {
			this.data.remove(key);
			return null;
		}
		return entry;
	}

	/** The live keys now, for checks: key to value (a String, or a copy of the hash). */
	Map<String, Object> liveKeys() {
		Map<String, Object> keys = new LinkedHashMap<>();
		for (String key : new ArrayList<>(this.data.keySet())) {
			Entry entry = live(key);
			if (entry != null) {
				keys.put(key, (entry.value instanceof Map<?, ?> hash) ? new LinkedHashMap<>(hash) : entry.value);
			}
		}
		return keys;
	}

	/** PTTL of a key now. */
	long pttl(String key) {
		Entry entry = live(key);
		if (entry == null) {
			return -2;
		}
		return (entry.expireAt < 0) ? -1 : Math.max(0, entry.expireAt - wallMillis());
	}

	/**
	 * Run one command (outside a script as inside one); nothing here checks whether the
	 * server runs or is stalled: the network does.
	 */
	Object call(String... args) {
		this.commands++;
		String command = args[0].toLowerCase(Locale.ROOT);
		boolean write = WRITES.contains(command);
		if (write && this.master != null) {
			return READONLY;
		}
		Object reply = command(command, args);
		if (write && !this.replicaStreams.isEmpty() && !(reply instanceof Err)) {
			if (command.equals("flushall")) {
				replicate(null);
			}
			else {
				for (int i = 1; i < ((command.equals("del")) ? args.length : 2); i++) {
					replicate(args[i]);
				}
			}
		}
		return reply;
	}

	private Object command(String command, String[] args) {
		try {
			return switch (command) {
				case "get" -> get(args);
				case "set" -> set(args);
				case "del" -> del(args);
				case "exists" -> exists(args);
				case "pexpire" -> pexpire(args);
				case "pttl" -> (args.length == 2) ? (Object) pttl(args[1]) : arity(command);
				case "incr" -> incr(args);
				case "type" -> type(args);
				case "hget" -> hget(args);
				case "hset" -> hset(args);
				case "hdel" -> hdel(args);
				case "hgetall" -> hgetall(args);
				case "hexists" -> hexists(args);
				case "hlen" -> hlen(args);
				case "time" -> time();
				case "publish" -> publish(args);
				case "script" -> script(args);
				case "evalsha" -> evalsha(args);
				case "eval" -> eval(args);
				case "info" -> info(args);
				case "config" -> config(args);
				case "wait" -> (long) this.replicas;
				case "flushall" -> flushAll();
				case "ping" -> new Status("PONG");
				case "dbsize" -> (long) liveKeys().size();
				default -> new Err("ERR unknown command '" + args[0] + "', with args beginning with: ");
			};
		}
		catch (NumberFormatException ex) {
			return NOT_AN_INTEGER;
		}
	}

	private static Err arity(String command) {
		return new Err("ERR wrong number of arguments for '" + command + "' command");
	}

	private Object get(String[] args) {
		if (args.length != 2) {
			return arity("get");
		}
		Entry entry = live(args[1]);
		if (entry == null) {
			return null;
		}
		return (entry.value instanceof String text) ? text : WRONGTYPE;
	}

	private Object set(String[] args) {
		if (args.length < 3) {
			return arity("set");
		}
		boolean nx = false;
		boolean xx = false;
		long px = -1;
		for (int i = 3; i < args.length; i++) {
			String option = args[i].toUpperCase(Locale.ROOT);
			switch (option) {
				case "NX" -> nx = true;
				case "XX" -> xx = true;
				case "PX", "EX" -> {
					if (i + 1 >= args.length) {
						return new Err("ERR syntax error");
					}
					long amount = Long.parseLong(args[++i]);
					if (amount <= 0) {
						return new Err("ERR invalid expire time in 'set' command");
					}
					px = option.equals("EX") ? amount * 1000 : amount;
				}
				default -> {
					return new Err("ERR syntax error");
				}
			}
		}
		Entry existing = live(args[1]);
		if ((nx && existing != null) || (xx && existing == null)) {
			return null;
		}
		Entry entry = new Entry(args[2]);
		entry.expireAt = (px > 0) ? wallMillis() + px : -1;
		this.data.put(args[1], entry);
		return OK;
	}

	private Object del(String[] args) {
		long deleted = 0;
		for (int i = 1; i < args.length; i++) {
			if (live(args[i]) != null) {
				this.data.remove(args[i]);
				deleted++;
			}
		}
		return deleted;
	}

	private Object exists(String[] args) {
		long found = 0;
		for (int i = 1; i < args.length; i++) {
			found += (live(args[i]) != null) ? 1 : 0;
		}
		return found;
	}

	private Object pexpire(String[] args) {
		if (args.length != 3) {
			return arity("pexpire");
		}
		long millis = Long.parseLong(args[2]);
		Entry entry = live(args[1]);
		if (entry == null) {
			return 0L;
		}
		if (millis <= 0) {
			this.data.remove(args[1]);
			return 1L;
		}
		entry.expireAt = wallMillis() + millis;
		return 1L;
	}

	private Object incr(String[] args) {
		if (args.length != 2) {
			return arity("incr");
		}
		Entry entry = live(args[1]);
		if (entry == null) {
			this.data.put(args[1], new Entry("1"));
			return 1L;
		}
		if (!(entry.value instanceof String text)) {
			return WRONGTYPE;
		}
		long value;
		try {
			value = Long.parseLong(text);
		}
		catch (NumberFormatException ex) {
			return NOT_AN_INTEGER;
		}
		entry.value = Long.toString(value + 1);
		return value + 1;
	}

	private Object type(String[] args) {
		Entry entry = live(args[1]);
		if (entry == null) {
			return new Status("none");
		}
		return new Status((entry.value instanceof String) ? "string" : "hash");
	}

	@SuppressWarnings("unchecked")
	private Object hash(String key, boolean create) {
		Entry entry = live(key);
		if (entry == null) {
			if (!create) {
				return null;
			}
			entry = new Entry(new LinkedHashMap<String, String>());
			this.data.put(key, entry);
		}
		return (entry.value instanceof LinkedHashMap<?, ?> hash) ? (LinkedHashMap<String, String>) hash : WRONGTYPE;
	}

	@SuppressWarnings("unchecked")
	private Object hget(String[] args) {
		if (args.length != 3) {
			return arity("hget");
		}
		Object hash = hash(args[1], false);
		return (hash instanceof Map<?, ?> map) ? ((Map<String, String>) map).get(args[2]) : hash;
	}

	@SuppressWarnings("unchecked")
	private Object hset(String[] args) {
		if (args.length < 4 || args.length % 2 != 0) {
			return arity("hset");
		}
		Object hash = hash(args[1], false);
		if (hash == WRONGTYPE) {
			return hash;
		}
		Map<String, String> map = (Map<String, String>) hash(args[1], true);
		long added = 0;
		for (int i = 2; i < args.length; i += 2) {
			added += (map.put(args[i], args[i + 1]) == null) ? 1 : 0;
		}
		return added;
	}

	@SuppressWarnings("unchecked")
	private Object hdel(String[] args) {
		Object hash = hash(args[1], false);
		if (!(hash instanceof Map<?, ?>)) {
			return (hash == null) ? 0L : hash;
		}
		Map<String, String> map = (Map<String, String>) hash;
		long removed = 0;
		for (int i = 2; i < args.length; i++) {
			removed += (map.remove(args[i]) != null) ? 1 : 0;
		}
		if (map.isEmpty()) {
			this.data.remove(args[1]);
		}
		return removed;
	}

	@SuppressWarnings("unchecked")
	private Object hgetall(String[] args) {
		Object hash = hash(args[1], false);
		if (hash == WRONGTYPE) {
			return hash;
		}
		List<Object> flat = new ArrayList<>();
		if (hash != null) {
			((Map<String, String>) hash).forEach((field, value) -> {
				flat.add(field);
				flat.add(value);
			});
		}
		return flat;
	}

	@SuppressWarnings("unchecked")
	private Object hlen(String[] args) {
		Object hash = hash(args[1], false);
		if (hash == WRONGTYPE) {
			return hash;
		}
		return (hash != null) ? (long) ((Map<String, String>) hash).size() : 0L;
	}

	@SuppressWarnings("unchecked")
	private Object hexists(String[] args) {
		Object hash = hash(args[1], false);
		if (hash == WRONGTYPE) {
			return hash;
		}
		return (hash != null && ((Map<String, String>) hash).containsKey(args[2])) ? 1L : 0L;
	}

	private Object time() {
		long micros = Math.floorDiv(wallNanos(), 1000L);
		return List.of(Long.toString(Math.floorDiv(micros, 1_000_000L)),
				Long.toString(Math.floorMod(micros, 1_000_000L)));
	}

	private Object publish(String[] args) {
		List<BiConsumer<String, String>> list = this.subscribers.get(args[1]);
		if (list == null) {
			return 0L;
		}
		if (args[2].length() == 40) {
			this.handOvers++; // a release handed the key to this token
		}
		for (BiConsumer<String, String> connection : List.copyOf(list)) {
			connection.accept(args[1], args[2]);
		}
		return (long) list.size();
	}

	private Object script(String[] args) {
		String sub = args[1].toLowerCase(Locale.ROOT);
		switch (sub) {
			case "load" -> {
				String sha = sha1(args[2]);
				SimLua.current().compile(args[2]);
				this.scripts.put(sha, args[2]);
				return sha;
			}
			case "flush" -> {
				this.scripts.clear();
				return OK;
			}
			case "exists" -> {
				List<Object> found = new ArrayList<>();
				for (int i = 2; i < args.length; i++) {
					found.add(this.scripts.containsKey(args[i].toLowerCase(Locale.ROOT)) ? 1L : 0L);
				}
				return found;
			}
			default -> {
				return new Err("ERR unknown subcommand '" + args[1] + "'");
			}
		}
	}

	private Object evalsha(String[] args) {
		String text = this.scripts.get(args[1].toLowerCase(Locale.ROOT));
		if (text == null) {
			return NOSCRIPT;
		}
		return run(text, args);
	}

	private Object eval(String[] args) {
		this.scripts.put(sha1(args[1]), args[1]);
		return run(args[1], args);
	}

	private Object run(String text, String[] args) {
		int numKeys = Integer.parseInt(args[2]);
		if (numKeys < 0 || numKeys > args.length - 3) {
			return new Err("ERR Number of keys can't be greater than number of args");
		}
		String[] keys = new String[numKeys];
		System.arraycopy(args, 3, keys, 0, numKeys);
		String[] argv = new String[args.length - 3 - numKeys];
		System.arraycopy(args, 3 + numKeys, argv, 0, argv.length);
		return SimLua.current().run(this, this.undone.script(text), keys, argv);
	}

	private Object info(String[] args) {
		String section = (args.length > 1) ? args[1].toLowerCase(Locale.ROOT) : "default";
		long uptime = Math.floorDiv(wallMillis(), 1000L) - Math.floorDiv(this.startedWallMillis, 1000L);
		String server = "# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\nrun_id:" + this.runId
				+ "\r\ntcp_port:7000\r\nuptime_in_seconds:" + uptime + "\r\nuptime_in_days:" + (uptime / 86400)
				+ "\r\n";
		String memory = "# Memory\r\nused_memory:1000000\r\nmaxmemory:" + (isEvicting() ? "104857600" : "0")
				+ "\r\nmaxmemory_policy:" + this.evictionPolicy + "\r\n";
		String stats = "# Stats\r\nevicted_keys:" + this.evictedKeys + "\r\n";
		String persistence = "# Persistence\r\nloading:0\r\naof_enabled:" + (this.appendOnly ? 1 : 0) + "\r\n";
		String replication = (this.master != null)
				? "# Replication\r\nrole:slave\r\nmaster_host:" + this.master.name + "\r\nmaster_link_status:up\r\n"
						+ "connected_slaves:0\r\nmaster_replid:" + this.master.replid + "\r\nmaster_replid2:"
						+ NO_REPLID + "\r\n"
				: "# Replication\r\nrole:master\r\nconnected_slaves:" + this.replicaStreams.size()
						+ "\r\nmaster_replid:" + this.replid + "\r\nmaster_replid2:" + this.replid2 + "\r\n";
		return switch (section) {
			case "server" -> server;
			case "memory" -> memory;
			case "persistence" -> persistence;
			case "replication" -> replication;
			case "stats" -> stats;
			case "default", "all", "everything" ->
				server + "\r\n" + memory + "\r\n" + persistence + "\r\n" + stats + "\r\n" + replication;
			default -> "";
		};
	}

	private Object config(String[] args) {
		if (args.length != 3 || !args[1].equalsIgnoreCase("get")) {
			return new Err("ERR unknown subcommand or wrong number of arguments for 'config'");
		}
		String value = switch (args[2].toLowerCase(Locale.ROOT)) {
			case "appendonly" -> this.appendOnly ? "yes" : "no";
			case "appendfsync" -> "always";
			case "maxmemory-policy" -> this.evictionPolicy;
			default -> null;
		};
		return (value != null) ? List.of(args[2].toLowerCase(Locale.ROOT), value) : List.of();
	}

	private Object flushAll() {
		this.data = new LinkedHashMap<>();
		return OK;
	}

	/**
	 * The keys matching {@code pattern} without a TTL, at most {@code limit}: what the
	 * engine's bounded {@code SCAN} with {@code PTTL} finds on a small key space.
	 */
	List<String> keysWithoutTtl(String pattern, int limit) {
		List<String> found = new ArrayList<>();
		for (Iterator<String> it = new ArrayList<>(this.data.keySet()).iterator(); it.hasNext()
				&& found.size() < limit;) {
			String key = it.next();
			Entry entry = live(key);
			if (entry != null && entry.expireAt < 0 && glob(pattern, 0, key, 0)) {
				found.add(key);
			}
		}
		return found;
	}

	/** Redis's glob: {@code *}, {@code ?}, {@code \} escapes (no classes needed here). */
	static boolean glob(String pattern, int p, String text, int t) {
		while (p < pattern.length()) {
			char c = pattern.charAt(p);
			if (c == '*') {
				for (int i = t; i <= text.length(); i++) {
					if (glob(pattern, p + 1, text, i)) {
						return true;
					}
				}
				return false;
			}
			if (t >= text.length()) {
				return false;
			}
			if (c == '\\' && p + 1 < pattern.length()) {
				c = pattern.charAt(++p);
			}
			else if (c == '?') {
				p++;
				t++;
				continue;
			}
			if (c != text.charAt(t)) {
				return false;
			}
			p++;
			t++;
		}
		return t == text.length();
	}

	private static final Map<String, String> SHA1 = new ConcurrentHashMap<>();

	static String sha1(String text) {
		return SHA1.computeIfAbsent(text, SimServer::digest);
	}

	private static String digest(String text) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
			StringBuilder sb = new StringBuilder(40);
			for (byte b : digest) {
				sb.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
			}
			return sb.toString();
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public String toString() {
		return this.name;
	}

}
