package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * One Redis master: a command connection and, when a waiter needs it, a pub/sub
 * connection ({@link PubSub}). Connections are made in the background and retried until
 * they succeed ({@link Reconnector}); a node that is down is not an error, its commands
 * fail at once ("rejected while disconnected") instead of being buffered, so a dead node
 * costs nothing and a slow one at most the node timeout.
 * <p>
 * What both kinds of node share lives here: the commands, the script permission probe
 * ({@link ScriptProbe}), the releases and undos sent again once the node is back
 * ({@link Redos}), the leak scan ({@link LeakScan}). A {@link StandaloneNode} is one
 * server (with its start and run_id for the restart guard, {@link ServerStart}, and the
 * connection for replicated writes, {@link ReplicatedWrites}); a {@link ClusterNode} is a
 * whole Redis Cluster in single mode.
 * <p>
 * Every disconnect and reconnect of the command connection starts a new connection
 * {@link #epoch() epoch}. Lettuce sends the commands that were in flight when a
 * connection dropped again after it reconnects, possibly to a new, empty server; so an
 * answer is a vote only if the epoch it was sent in is still the current one when it
 * comes back ({@link #sameConnection(long)}).
 */
abstract sealed class RedisNode implements Node, Channels, AutoCloseable permits StandaloneNode, ClusterNode {

	private final String address;

	private final AbstractRedisClient client;

	final ScheduledExecutorService scheduler;

	final LongSupplier nanoClock;

	/**
	 * The connection epoch: bumped on every disconnect and every reconnect of the command
	 * connection, on the I/O thread that sees it, before any command is sent again on the
	 * new connection and so before any answer comes back on it.
	 */
	private final AtomicLong epoch = new AtomicLong();

	/**
	 * The commands both Lettuce connections offer: {@code RedisAsyncCommands} of one
	 * node, {@code RedisAdvancedClusterAsyncCommands} (routing by key, cluster-wide SCAN)
	 * of a cluster.
	 */
	private volatile RedisClusterAsyncCommands<String, String> commands;

	private volatile StatefulConnection<String, String> connection;

	private volatile boolean closed;

	/** Last round-trip time, for status. */
	private volatile long lastLatencyNanos = -1;

	/**
	 * The arguments of the last {@code SET NX PX}, reused while the lease is the same.
	 */
	private volatile LeaseArgs lastSetArgs;

	private final ScriptProbe probe;

	private final Redos redos;

	private final PubSub pubSub;

	private final Reconnector reconnector;

	RedisNode(String address, AbstractRedisClient client, NodeContext context) {
		this.address = address;
		this.client = client;
		this.scheduler = context.scheduler();
		this.nanoClock = context.nanoClock();
		this.probe = new ScriptProbe(context.probeKey());
		this.redos = new Redos((redo) -> eval(redo.script(), redo.key(), redo.args()), this.nanoClock, this.scheduler,
				this::isConnected, this::isClosed);
		this.pubSub = new PubSub(this::connectPubSub, context.onMessage(), this.scheduler, this::isClosed);
		this.reconnector = new Reconnector(
				(task, delay) -> this.scheduler.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS),
				(error) -> context.onError().accept(this.address, error), this::isClosed);
	}

	/** Open the command connection. */
	abstract CompletableFuture<? extends StatefulConnection<String, String>> connectCommands();

	/** The commands of a connection {@link #connectCommands()} opened. */
	abstract RedisClusterAsyncCommands<String, String> commandsOf(StatefulConnection<String, String> connection);

	/** What a new command connection needs once the scripts are probed. */
	abstract CompletableFuture<Void> afterConnect(StatefulConnection<String, String> connection);

	/** Open a pub/sub connection. */
	abstract CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> connectPubSub();

	/** Whether commands can be sent now. */
	abstract boolean isConnected();

	/** The entry as a URI without credentials, for messages. */
	abstract String uriText();

	/** How long the server has been up, as last read; negative while unknown. */
	abstract long uptimeNanos();

	/** The server's {@code run_id} on the connection open now; null while unknown. */
	abstract String runId();

	/**
	 * Whether this node may vote under a restart guard of {@code rejoinDelayNanos}: zero
	 * disables the guard; otherwise the server must be known to have been up that long.
	 */
	abstract boolean isVoting(long rejoinDelayNanos);

	/** Read the server's start again if it is unknown on a live connection. */
	abstract void refreshIfUnknown();

	/**
	 * {@code SET key token NX PX lease} on the replicated-writes connection, followed
	 * there by {@code WAIT} if it set the key: completes with the reply once
	 * {@code replicas} replicas acknowledged it, else exceptionally.
	 */
	abstract CompletableFuture<String> setIfAbsent(String key, String token, long leaseMillis, int replicas,
			long timeoutMillis);

	/**
	 * A script on the replicated-writes connection, followed there by {@code WAIT} if
	 * {@code wrote} says it changed something: completes with the script's answer once
	 * {@code replicas} replicas acknowledged it, else exceptionally.
	 */
	abstract CompletableFuture<Long> evalReplicated(Script script, String[] keys, Predicate<Long> wrote, int replicas,
			long timeoutMillis, String... args);

	/** Host and port, never credentials. */
	@Override
	public String address() {
		return this.address;
	}

	@Override
	public long epoch() {
		return this.epoch.get();
	}

	@Override
	public boolean sameConnection(long epoch) {
		return this.epoch.get() == epoch;
	}

	/** A disconnect or a reconnect of the command connection: a new epoch. */
	void newEpoch() {
		this.epoch.incrementAndGet();
	}

	long lastLatencyNanos() {
		return this.lastLatencyNanos;
	}

	@Override
	public void recordLatency(long nanos) {
		this.lastLatencyNanos = nanos;
	}

	boolean isClosed() {
		return this.closed;
	}

	/** The command connection, null until connected. */
	StatefulConnection<String, String> connection() {
		return this.connection;
	}

	/** The commands, null until connected. */
	RedisClusterAsyncCommands<String, String> commands() {
		return this.commands;
	}

	/**
	 * Redis's or the network's text for the last failed connection attempt, else null.
	 */
	String lastConnectFailure() {
		return this.reconnector.lastFailure();
	}

	<T> CompletableFuture<T> notConnected() {
		return this.reconnector.notConnected();
	}

	/**
	 * Connect in the background, retrying with back-off until connected or closed.
	 * @return the first attempt, completing normally whether it connected or not
	 */
	CompletableFuture<Void> connect() {
		return this.reconnector.connect(() -> connectCommands().thenCompose((conn) -> {
			if (this.closed) {
				conn.closeAsync();
				return CompletableFuture.<Void>completedFuture(null);
			}
			this.connection = conn;
			this.commands = commandsOf(conn);
			this.reconnector.connected();
			// Load the scripts now so that the first EVALSHA finds them (on a cluster
			// Lettuce loads them on every master).
			for (Script script : Script.ALL) {
				this.commands.scriptLoad(script.text());
			}
			return probeScripts().thenCompose((probed) -> afterConnect(conn));
		}));
	}

	/** Run the script permission probe, if connected. */
	CompletableFuture<Void> probeScripts() {
		if (this.commands == null || this.closed) {
			return CompletableFuture.completedFuture(null);
		}
		return this.probe.probe(this::eval);
	}

	/** The failure of a grant while this user may not run the lock scripts, else null. */
	<T> CompletableFuture<T> refused() {
		return this.probe.refused();
	}

	/**
	 * {@code SET key token NX PX lease}: completes with the reply, which
	 * {@link #isSet(String)} reads as set, or not set because the key exists. Lettuce's
	 * own future, with no stage added, since every acquisition round waits on one.
	 */
	CompletionStage<String> setIfAbsent(String key, String token, long leaseMillis) {
		RedisClusterAsyncCommands<String, String> c = this.commands;
		if (c == null) {
			return notConnected();
		}
		CompletableFuture<String> refused = refused();
		if (refused != null) {
			return refused;
		}
		return c.set(key, token, setArgs(leaseMillis));
	}

	/** Whether a {@code SET NX} reply says the key was set. */
	static boolean isSet(String reply) {
		return "OK".equals(reply);
	}

	/** The uptime line of {@code INFO server}; see {@link ServerStart}. */
	static long parseUptimeSeconds(String info) {
		return ServerStart.parseUptimeSeconds(info);
	}

	/**
	 * {@code NX PX lease} for a lease, the last one kept: a service uses a few leases,
	 * and Lettuce only reads the arguments.
	 */
	SetArgs setArgs(long leaseMillis) {
		LeaseArgs last = this.lastSetArgs;
		if (last == null || last.leaseMillis != leaseMillis) {
			last = new LeaseArgs(leaseMillis, SetArgs.Builder.nx().px(leaseMillis));
			this.lastSetArgs = last;
		}
		return last.args;
	}

	/** Immutable pair, published through a volatile field. */
	private record LeaseArgs(long leaseMillis, SetArgs args) {
	}

	/** Run a script with EVALSHA, falling back to EVAL on NOSCRIPT (a restarted node). */
	CompletableFuture<Long> eval(Script script, String key, String... args) {
		return eval(script, new String[] { key }, args);
	}

	CompletableFuture<Long> eval(Script script, String[] keys, String... args) {
		RedisClusterAsyncCommands<String, String> c = this.commands;
		if (c == null) {
			return notConnected();
		}
		return eval(c, script, keys, args);
	}

	static CompletableFuture<Long> eval(RedisClusterAsyncCommands<String, String> c, Script script, String[] keys,
			String... args) {
		CompletableFuture<Long> sha = c.<Long>evalsha(script.sha1(), ScriptOutputType.INTEGER, keys, args)
			.toCompletableFuture();
		return sha.exceptionallyCompose((error) -> (Futures.unwrap(error) instanceof RedisNoScriptException)
				? c.<Long>eval(script.text(), ScriptOutputType.INTEGER, keys, args).toCompletableFuture()
				: CompletableFuture.failedFuture(error));
	}

	/**
	 * Run an idempotent, token-checked script (a compare-and-delete); if it fails without
	 * a reply from Redis, send it again once the node is connected, for as long as
	 * {@code aliveNanos} from now (the lease the command undoes).
	 */
	CompletableFuture<Long> evalRedone(Script script, long aliveNanos, String key, String... args) {
		return this.redos.send(script, aliveNanos, key, args);
	}

	/**
	 * Send the pending redos again, dropping those whose lease is over; called on every
	 * reconnect and by the engine's periodic check.
	 */
	void redoPending() {
		this.redos.redoPending();
	}

	/** Commands waiting to be sent again, for tests. */
	int pendingRedos() {
		return this.redos.pending();
	}

	@Override
	public CompletableFuture<Void> subscribe(String channel) {
		return this.pubSub.subscribe(channel);
	}

	@Override
	public void unsubscribe(String channel) {
		this.pubSub.unsubscribe(channel);
	}

	/**
	 * Unsubscribe the channels whose UNSUBSCRIBE was lost, once the pub/sub connection is
	 * open; on every pub/sub reconnect and by the engine's periodic check.
	 */
	void unsubscribeUnwanted() {
		this.pubSub.unsubscribeUnwanted();
	}

	/**
	 * Keys matching {@code pattern} that have no TTL, by a bounded {@code SCAN}: at most
	 * {@code maxScans} batches, at most {@code limit} keys.
	 */
	CompletableFuture<List<String>> keysWithoutTtl(String pattern, int limit, int maxScans) {
		RedisClusterAsyncCommands<String, String> c = this.commands;
		if (c == null) {
			return notConnected();
		}
		return LeakScan.keysWithoutTtl(c, scanReady(), this.scheduler, pattern, limit, maxScans);
	}

	/** Completes once the connections the leak scan uses are open. */
	CompletableFuture<Void> scanReady() {
		return CompletableFuture.completedFuture(null);
	}

	@Override
	public void close() {
		this.closed = true;
		this.pubSub.close();
		StatefulConnection<String, String> c = this.connection;
		if (c != null) {
			c.close();
		}
		closeOthers();
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	/** Close the connections of this kind of node beside the command and pub/sub ones. */
	void closeOthers() {
	}

	@Override
	public String toString() {
		return this.address;
	}

}
