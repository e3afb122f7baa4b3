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
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * One Redis master: a command connection and, when a waiter needs it, a pub/sub
 * connection ({@link PubSub}), made in the background and retried until they succeed
 * ({@link Reconnector}). A node that is down is not an error: its commands fail at once
 * ("rejected while disconnected") instead of being buffered, so a dead node costs nothing
 * and a slow one at most the node timeout. Both kinds of node share this base: the script
 * probe ({@link ScriptProbe}), the releases and undos sent again once the node is back
 * ({@link Redos}), the leak scan ({@link LeakScan}); a {@link StandaloneNode} is one
 * server, a {@link ClusterNode} a whole Redis Cluster.
 * <p>
 * Every disconnect and reconnect of the command connection starts a new connection
 * {@link #epoch() epoch}. Lettuce sends the commands in flight when a connection dropped
 * again after it reconnects, possibly to a new, empty server; so an answer is a vote only
 * if the epoch it was sent in is still current when it comes back
 * ({@link #sameConnection(long)}).
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

	private volatile StatefulConnection<String, String> connection;

	private volatile boolean closed;

	/** Last round-trip time, for status. */
	private volatile long lastLatencyNanos = -1;

	private final Redos redos;

	private final PubSub pubSub;

	private final Reconnector reconnector;

	private final NodeCommands commands;

	RedisNode(String address, AbstractRedisClient client, NodeContext context) {
		this.address = address;
		this.client = client;
		this.scheduler = context.scheduler();
		this.nanoClock = context.nanoClock();
		this.redos = new Redos((redo) -> eval(redo.script(), redo.key(), redo.args()), this.nanoClock, this.scheduler,
				this::isConnected, this::isClosed, this::epoch);
		this.pubSub = new PubSub(this::connectPubSub, context.onMessage(), this.scheduler, this::isClosed);
		this.reconnector = new Reconnector(
				(task, delay) -> this.scheduler.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS),
				(error) -> context.onError().accept(this.address, error), this::isClosed);
		this.commands = new NodeCommands(new ScriptProbe(context.probeKey()), this.reconnector);
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

	/** Whether the server is known to have been up {@code rejoinDelayNanos} (0: off). */
	abstract boolean isVoting(long rejoinDelayNanos);

	/** Read the server's start again if it is unknown on a live connection. */
	abstract void refreshIfUnknown();

	/** {@code SET NX PX} then {@code WAIT} ({@link ReplicatedWrites}). */
	abstract CompletableFuture<String> setIfAbsent(String key, String token, long leaseMillis, int replicas,
			long timeoutMillis);

	/** A script then, if {@code wrote}, {@code WAIT} ({@link ReplicatedWrites}). */
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
		return this.commands.get();
	}

	/** Redis's or the network's text for the last failed connection attempt, or null. */
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
			RedisClusterAsyncCommands<String, String> c = commandsOf(conn);
			this.commands.use(c);
			this.reconnector.connected();
			// Load the scripts now so that the first EVALSHA finds them (on a cluster
			// Lettuce loads them on every master).
			for (Script script : Script.ALL) {
				c.scriptLoad(script.text());
			}
			return probeScripts().thenCompose((probed) -> afterConnect(conn));
		}));
	}

	/** Run the script permission probe, if connected. */
	CompletableFuture<Void> probeScripts() {
		return this.closed ? CompletableFuture.completedFuture(null) : this.commands.probe();
	}

	/** The failure of a grant while this user may not run the lock scripts, else null. */
	<T> CompletableFuture<T> refused() {
		return this.commands.refused();
	}

	/** {@code SET key token NX PX lease} ({@link NodeCommands}). */
	CompletionStage<String> setIfAbsent(String key, String token, long leaseMillis) {
		return this.commands.setIfAbsent(key, token, leaseMillis);
	}

	/** Whether a {@code SET NX} reply says the key was set. */
	static boolean isSet(String reply) {
		return "OK".equals(reply);
	}

	/** The uptime line of {@code INFO server}; see {@link ServerStart}. */
	static long parseUptimeSeconds(String info) {
		return ServerStart.parseUptimeSeconds(info);
	}

	SetArgs setArgs(long leaseMillis) {
		return this.commands.setArgs(leaseMillis);
	}

	/** A script by EVALSHA ({@link NodeCommands}). */
	CompletableFuture<Long> eval(Script script, String key, String... args) {
		return this.commands.eval(script, new String[] { key }, args);
	}

	CompletableFuture<Long> eval(Script script, String[] keys, String... args) {
		return this.commands.eval(script, keys, args);
	}

	/** A compare-and-delete, sent again while {@code aliveNanos} last ({@link Redos}). */
	CompletableFuture<Long> evalRedone(Script script, long aliveNanos, String key, String... args) {
		return this.redos.send(script, aliveNanos, key, args);
	}

	/** On every reconnect and by the engine's periodic check ({@link Redos}). */
	void redoPending() {
		this.redos.redoPending();
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
	 * The engine's periodic care: read the server's start if unknown, send the pending
	 * redos and the lost UNSUBSCRIBEs, as after a reconnect.
	 */
	void maintain() {
		refreshIfUnknown();
		this.redos.redoPending();
		this.pubSub.unsubscribeUnwanted();
	}

	/**
	 * Keys matching {@code pattern} without a TTL, by a bounded scan ({@link LeakScan}).
	 */
	CompletableFuture<List<String>> keysWithoutTtl(String pattern, int limit, int maxScans) {
		RedisClusterAsyncCommands<String, String> c = commands();
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
