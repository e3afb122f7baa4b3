package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.resource.ClientResources;
import io.quorumlock.LockListener;
import io.quorumlock.LockOptions;

/**
 * What {@link QuorumLockEngine.Builder} collects, and its setters, in one place: where
 * the masters (or the cluster) are and how to reach them, the timing (node timeout, clock
 * drift, retry delay, the restart guard and the leases it is derived from, the fencing
 * counters' time to live, the clock), the request settings (key prefix and length,
 * defaults, instances), the listeners and the caller-facing policies. Users see the
 * setters on {@code QuorumLockEngine.Builder}, its only subclass, which adds the
 * defaults; {@link #build()} checks them all at once ({@link EngineSettings}).
 */
abstract sealed class EngineBuilder permits QuorumLockEngine.Builder {

	EngineBuilder() {
	}

	final List<String> uris = new ArrayList<>();

	final List<RedisURI> redisUris = new ArrayList<>();

	final List<RedisURI> clusterSeeds = new ArrayList<>();

	ClientResources clientResources;

	SslOptions sslOptions;

	final Set<String> freshRunIds = new LinkedHashSet<>();

	int syncReplicas;

	boolean evictionAllowed;

	final QuorumLockEngine.Builder self() {
		return (QuorumLockEngine.Builder) this;
	}

	/**
	 * TLS settings for the {@code rediss://} nodes: the trust store (for a private CA), a
	 * client certificate, protocols and cipher suites. Without it Lettuce uses the JDK's
	 * default trust store. Nodes given as {@code redis://} stay plain text.
	 * @param sslOptions the Lettuce TLS options
	 * @return this builder
	 */
	public QuorumLockEngine.Builder sslOptions(SslOptions sslOptions) {
		this.sslOptions = requireNonNull(sslOptions, "sslOptions");
		return self();
	}

	/**
	 * Masters an operator declares brand new, by the {@code run_id} of their server
	 * process ({@code INFO server}): the restart guard writes their dataset marker at
	 * once instead of holding them back. Safe only when no client of these masters was
	 * granted a lease before those processes started (a new deployment): a restart gives
	 * the server a new run_id, and the guard applies to it again if it lost its data.
	 * @param runIds run_ids of server processes that started empty with no lease ever
	 * granted on these masters
	 * @return this builder
	 */
	public QuorumLockEngine.Builder freshMasterRunIds(Collection<String> runIds) {
		for (String runId : requireNonNull(runIds, "runIds")) {
			if (requireNonNull(runId, "runId").isBlank()) {
				throw new IllegalArgumentException("freshMasterRunIds: a run_id must not be blank");
			}
			this.freshRunIds.add(runId.trim());
		}
		return self();
	}

	/**
	 * Whether a master that can evict lock keys (a {@code maxmemory} limit with a
	 * {@code maxmemory-policy} other than {@code noeviction}) still counts: by default it
	 * does not vote (quorum mode) or refuses grants (single mode), since under memory
	 * pressure it drops held lock keys, which have a TTL, and grants them again. Accept
	 * it only where memory pressure cannot happen.
	 * @param allowed whether evicting masters count
	 * @return this builder
	 */
	public QuorumLockEngine.Builder allowEvictingMasters(boolean allowed) {
		this.evictionAllowed = allowed;
		return self();
	}

	/**
	 * Replicas that must acknowledge each grant (Redis {@code WAIT}) before it counts;
	 * zero, the default, waits for none.
	 * @param syncReplicas zero or more
	 * @return this builder
	 */
	public QuorumLockEngine.Builder syncReplicas(int syncReplicas) {
		this.syncReplicas = syncReplicas;
		return self();
	}

	/**
	 * Add nodes by URI ({@code redis://[user:password@]host:port[/db]} or
	 * {@code rediss://} for TLS), checked strictly: a scheme, a host and a numeric port.
	 * @param uris the node URIs
	 * @return this builder
	 */
	public QuorumLockEngine.Builder nodes(String... uris) {
		return nodes(List.of(uris));
	}

	/**
	 * Add nodes by URI.
	 * @param uris the node URIs
	 * @return this builder
	 * @see #nodes(String...)
	 */
	public QuorumLockEngine.Builder nodes(List<String> uris) {
		this.uris.addAll(uris);
		return self();
	}

	/**
	 * Add nodes as Lettuce {@link RedisURI}s (for settings a URI string cannot carry).
	 * @param uris the nodes
	 * @return this builder
	 */
	public QuorumLockEngine.Builder redisUris(List<RedisURI> uris) {
		this.redisUris.addAll(uris);
		return self();
	}

	/**
	 * Single mode on a Redis Cluster: lock on the cluster reached through these seed
	 * nodes (any of its nodes; Lettuce discovers the rest and follows the topology)
	 * instead of on listed nodes. Each lock is one key in one hash slot, so the cluster
	 * acts as one node with quorum 1. Cannot be combined with nodes, with sync-replicas
	 * ({@code syncReplicas}) or with a key prefix containing '{' or '}'.
	 * @param seeds seed nodes ({@code redis://} or {@code rediss://}, with any
	 * credentials)
	 * @return this builder
	 */
	public QuorumLockEngine.Builder cluster(List<RedisURI> seeds) {
		requireNonNull(seeds, "seeds").forEach((seed) -> requireNonNull(seed, "cluster seed"));
		this.clusterSeeds.addAll(seeds);
		return self();
	}

	/**
	 * Single mode on a Redis Cluster, with seed nodes by URI, checked as strictly as
	 * {@code nodes(String...)}.
	 * @param seeds seed node URIs, for example {@code redis://redis-1:7000}
	 * @return this builder
	 * @see #cluster(List)
	 */
	public QuorumLockEngine.Builder cluster(String... seeds) {
		List<RedisURI> parsed = new ArrayList<>(seeds.length);
		for (String seed : seeds) {
			parsed.add(NodeUri.parse(seed));
		}
		return cluster(parsed);
	}

	/**
	 * Lettuce resources to share (event loops, timers); by default the engine creates and
	 * closes its own.
	 * @param clientResources the resources
	 * @return this builder
	 */
	public QuorumLockEngine.Builder clientResources(ClientResources clientResources) {
		this.clientResources = requireNonNull(clientResources, "clientResources");
		return self();
	}

	static <T> T requireNonNull(T value, String name) {
		if (value == null) {
			throw new IllegalArgumentException("'" + name + "' must not be null");
		}
		return value;
	}

	Duration nodeTimeout = QuorumLockEngine.Builder.DEFAULT_NODE_TIMEOUT;

	double clockDriftFactor = QuorumLockEngine.Builder.DEFAULT_CLOCK_DRIFT_FACTOR;

	Duration retryMin = QuorumLockEngine.Builder.DEFAULT_RETRY_MIN;

	Duration retryMax = QuorumLockEngine.Builder.DEFAULT_RETRY_MAX;

	Duration retryBudget = QuorumLockEngine.Builder.DEFAULT_RETRY_BUDGET;

	LongSupplier nanoClock = EngineTimers.SYSTEM_CLOCK;

	Duration rejoinDelay;

	final List<Duration> declaredLeases = new ArrayList<>();

	boolean guardFromDeclaredLeases;

	Duration fencingCounterTtl = QuorumLockEngine.Builder.DEFAULT_FENCING_COUNTER_TTL;

	/**
	 * Restart guard: a node that restarted less than this long ago does not count toward
	 * a quorum. Unset means the longest declared lease: the default lease, every
	 * {@code instance} lease and every declared lease ({@code declaredLeases}), fixed at
	 * {@code build()}. A positive value shorter than one of those leases is refused at
	 * build time; zero turns the guard off. Single mode (one node) has no guard. Every
	 * client of the same masters needs the same guard.
	 * @param rejoinDelay zero or more
	 * @return this builder
	 */
	public QuorumLockEngine.Builder rejoinDelay(Duration rejoinDelay) {
		this.rejoinDelay = requireNonNull(rejoinDelay, "rejoinDelay");
		return self();
	}

	/**
	 * Leases the application will ask for beyond the default and the instance leases (the
	 * auto-configuration passes every {@code @DistributedLock} method's effective lease),
	 * so that the restart guard covers them. The guard is fixed at {@code build()} from
	 * what is declared, so it is the same on every instance of a deployment whatever each
	 * has run; in quorum mode with the guard on, a request whose lease is longer than the
	 * guard in force is refused.
	 * @param leases positive durations; added to those given before
	 * @return this builder
	 */
	public QuorumLockEngine.Builder declaredLeases(Collection<Duration> leases) {
		for (Duration lease : requireNonNull(leases, "leases")) {
			if (requireNonNull(lease, "lease").isNegative() || lease.isZero()) {
				throw new IllegalArgumentException("declaredLeases: a lease must be positive, was " + lease);
			}
			this.declaredLeases.add(lease);
		}
		return self();
	}

	/**
	 * Derive the restart guard from the declared leases only: every {@code instance}
	 * lease and every declared lease ({@code declaredLeases}); the default lease counts
	 * only when an instance sets no lease of its own, or when nothing else is declared.
	 * Pass the default lease to {@code declaredLeases} when it is chosen explicitly or
	 * relied on. A request relying on an undeclared default lease longer than the guard
	 * is refused before anything is sent. Without this call the default lease always
	 * counts.
	 * @return this builder
	 */
	public QuorumLockEngine.Builder restartGuardFromDeclaredLeases() {
		this.guardFromDeclaredLeases = true;
		return self();
	}

	/**
	 * Time to live of each per-key fencing counter after its last use.
	 * @param fencingCounterTtl a positive duration
	 * @return this builder
	 */
	public QuorumLockEngine.Builder fencingCounterTtl(Duration fencingCounterTtl) {
		this.fencingCounterTtl = requireNonNull(fencingCounterTtl, "fencingCounterTtl");
		return self();
	}

	/**
	 * Bound on each node's answer within one round; must stay below a third of every
	 * lease.
	 * @param nodeTimeout a positive duration
	 * @return this builder
	 */
	public QuorumLockEngine.Builder nodeTimeout(Duration nodeTimeout) {
		this.nodeTimeout = requireNonNull(nodeTimeout, "nodeTimeout");
		return self();
	}

	/**
	 * Share of a lease assumed lost to clock drift between nodes, in [0, 0.5).
	 * @param clockDriftFactor the factor
	 * @return this builder
	 */
	public QuorumLockEngine.Builder clockDriftFactor(double clockDriftFactor) {
		this.clockDriftFactor = clockDriftFactor;
		return self();
	}

	/**
	 * Bounds of the jittered delay between attempts while waiting.
	 * @param min the shortest delay
	 * @param max the longest delay
	 * @return this builder
	 */
	public QuorumLockEngine.Builder retryDelay(Duration min, Duration max) {
		this.retryMin = requireNonNull(min, "min");
		this.retryMax = requireNonNull(max, "max");
		return self();
	}

	/**
	 * How long an acquisition goes on retrying, beyond its {@code waitAtMost}, rounds
	 * that no answer decided: rounds short of a quorum because masters did not answer in
	 * time, answered a transient condition ({@code NOSCRIPT} after a flush,
	 * {@code LOADING}) or are reconnecting. A master that did not answer is unknown, not
	 * "no": {@code waitAtMost} is about other holders, this budget about slowness, so a
	 * call with {@code waitAtMost = 0} still rides out a stalled client or master for
	 * this long. Every retry is a whole round with a fresh token. Zero turns it off (a
	 * round short of answers then fails at once without a wait).
	 * @param retryBudget zero or more
	 * @return this builder
	 */
	public QuorumLockEngine.Builder retryBudget(Duration retryBudget) {
		this.retryBudget = requireNonNull(retryBudget, "retryBudget");
		return self();
	}

	QuorumLockEngine.Builder nanoClock(LongSupplier nanoClock) {
		this.nanoClock = nanoClock;
		return self();
	}

	String keyPrefix = QuorumLockEngine.Builder.DEFAULT_KEY_PREFIX;

	LockOptions defaults = LockOptions.none();

	final Map<String, LockOptions> instances = new LinkedHashMap<>();

	final List<LockListener> listeners = new ArrayList<>();

	OnLeaseLost onLeaseLost = OnLeaseLost.THROW;

	int maxKeyLength = QuorumLockEngine.Builder.DEFAULT_MAX_KEY_LENGTH;

	Executor asyncExecutor;

	/**
	 * Longest lock key accepted, in characters: the key a request or an annotation gives,
	 * before the prefix and the name are added. A longer key is refused with a
	 * {@link io.quorumlock.LockKeyException} before anything is sent to Redis.
	 * @param maxKeyLength a positive number (default 512)
	 * @return this builder
	 */
	public QuorumLockEngine.Builder maxKeyLength(int maxKeyLength) {
		this.maxKeyLength = maxKeyLength;
		return self();
	}

	/**
	 * Where callers' continuations run when a future the engine hands out
	 * ({@code acquireAsync}, {@code releaseAsync}, {@code fencingTokenAsync}) would
	 * otherwise complete on a Redis I/O thread or an engine thread. Default: the common
	 * pool, or, where it has a single worker (one or two cores), a pool of the engine's
	 * own whose idle threads are reused and end 30 s after their last task (where
	 * {@code CompletableFuture} would start a thread per task). Code never runs there
	 * when the future completes on a caller's thread.
	 * @param asyncExecutor the executor
	 * @return this builder
	 */
	public QuorumLockEngine.Builder asyncExecutor(Executor asyncExecutor) {
		this.asyncExecutor = requireNonNull(asyncExecutor, "asyncExecutor");
		return self();
	}

	/**
	 * What a release reports when the lease was lost before it (default: throw).
	 * @param onLeaseLost the policy
	 * @return this builder
	 */
	public QuorumLockEngine.Builder onLeaseLost(OnLeaseLost onLeaseLost) {
		this.onLeaseLost = requireNonNull(onLeaseLost, "onLeaseLost");
		return self();
	}

	/**
	 * Prefix of every Redis key.
	 * @param keyPrefix the prefix, for example {@code lock:}
	 * @return this builder
	 */
	public QuorumLockEngine.Builder keyPrefix(String keyPrefix) {
		this.keyPrefix = requireNonNull(keyPrefix, "keyPrefix");
		return self();
	}

	/**
	 * Defaults for options a request does not set (built in: lease 30 s, no wait, renew,
	 * no bound on renewal).
	 * @param defaults the defaults
	 * @return this builder
	 */
	public QuorumLockEngine.Builder defaults(LockOptions defaults) {
		this.defaults = requireNonNull(defaults, "defaults");
		return self();
	}

	/**
	 * Options for requests with the given name, between the request's and the defaults.
	 * @param name the lock name
	 * @param options the options
	 * @return this builder
	 */
	public QuorumLockEngine.Builder instance(String name, LockOptions options) {
		this.instances.put(requireNonNull(name, "name"), requireNonNull(options, "options"));
		return self();
	}

	/**
	 * Add a listener.
	 * @param listener the listener
	 * @return this builder
	 */
	public QuorumLockEngine.Builder listener(LockListener listener) {
		this.listeners.add(requireNonNull(listener, "listener"));
		return self();
	}

	/**
	 * Check the settings and start connecting to the nodes in the background; a node that
	 * is unreachable now is not an error.
	 * @return the engine
	 * @throws IllegalArgumentException for a bad setting, naming it and its value
	 */
	public QuorumLockEngine build() {
		return new QuorumLockEngine(EngineSettings.of(this), null);
	}

	/** An engine on what a test supplies: timers, randomness, transports. */
	QuorumLockEngine build(EngineRuntime runtime) {
		return new QuorumLockEngine(EngineSettings.of(this), runtime);
	}

}
