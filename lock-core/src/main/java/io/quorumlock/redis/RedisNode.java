package io.quorumlock.redis;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;

/**
 * One Redis master: a command connection and, when a waiter needs it, a pub/sub
 * connection. Connections are made in the background and retried until they succeed; a
 * node that is down is not an error, its commands fail at once ("rejected while
 * disconnected") instead of being buffered, so a dead node costs nothing and a slow one
 * at most the node timeout.
 * <p>
 * For the restart guard the node knows when its server started: read from {@code INFO
 * server} on every (re)connect, never on the acquire path. From the moment the connection
 * drops until that read succeeds again the start is unknown and the node does not vote,
 * so a server that restarted (which always breaks the connection) can never vote early.
 * <p>
 * Every disconnect and reconnect of the command connection starts a new connection
 * {@link #epoch() epoch}. Lettuce sends the commands that were in flight when a
 * connection dropped again after it reconnects, possibly to a new, empty server; so an
 * answer is a vote only if the epoch it was sent in is still the current one when it
 * comes back ({@link #sameConnection(long)}), and a start read in one epoch says nothing
 * in the next.
 * <p>
 * In single mode the one node may also be a whole Redis Cluster ({@link #cluster}): one
 * Lettuce cluster connection that routes each command by the hash slot of its first key
 * (every script declares all its keys, and all keys of one lock share the slot of its
 * hash tag), follows {@code MOVED} and refreshes the topology. A cluster node tracks no
 * uptime (single mode has no restart guard), scans every master for leaks and has no
 * {@code WAIT} (the engine refuses sync-replicas on a cluster).
 */
final class RedisNode implements Node, Channels, AutoCloseable {

	private static final Duration MAX_CONNECT_RETRY = Duration.ofSeconds(5);

	private static final long UNKNOWN = Long.MIN_VALUE;

	private static final Duration CLUSTER_TOPOLOGY_REFRESH = Duration.ofSeconds(60);

	private final String address;

	/** A {@link RedisClient}, or a {@link RedisClusterClient} for a cluster. */
	private final AbstractRedisClient client;

	/** The node; null for a cluster. */
	private final RedisURI uri;

	private final ScheduledExecutorService scheduler;

	private final LongSupplier nanoClock;

	private final Consumer<String> onMessage;

	private final Consumer<Throwable> onError;

	/**
	 * The commands both Lettuce connections offer: {@code RedisAsyncCommands} of one
	 * node, {@code RedisAdvancedClusterAsyncCommands} (routing by key, cluster-wide SCAN)
	 * of a cluster.
	 */
	private volatile RedisClusterAsyncCommands<String, String> commands;

	private volatile StatefulConnection<String, String> connection;

	/**
	 * Whether writes that replicas must acknowledge go through their own connection
	 * (sync-replicas); never on a cluster.
	 */
	private final boolean replicatedWrites;

	/**
	 * The connection for writes followed by {@code WAIT} (sync-replicas), null until
	 * connected or when not used. {@code WAIT} blocks the connection it is sent on until
	 * the replicas acknowledge or it times out, and it counts the writes of that
	 * connection only: so each write it confirms is sent here, immediately followed by
	 * its {@code WAIT}, and nothing else is (releases, undos and reads stay on
	 * {@link #commands}, never queued behind a lagging replica).
	 */
	private volatile RedisClusterAsyncCommands<String, String> replicated;

	private volatile StatefulConnection<String, String> replicatedConnection;

	private final AtomicReference<CompletableFuture<StatefulRedisPubSubConnection<String, String>>> pubSub = new AtomicReference<>();

	/**
	 * The connection epoch: bumped on every disconnect and every reconnect of the command
	 * connection, on the I/O thread that sees it, before any command is sent again on the
	 * new connection and so before any answer comes back on it.
	 */
	private final AtomicLong epoch = new AtomicLong();

	/**
	 * When the server started (nanoTime, from its uptime) and its {@code run_id}, read in
	 * one connection epoch; they hold only while that epoch is current, and the start is
	 * UNKNOWN while not verified. Replaced whole, so that a start and its epoch are
	 * always read together.
	 */
	private volatile Start start = new Start(-1, UNKNOWN, null);

	/** Last round-trip time of an INFO read, for status. */
	private volatile long lastLatencyNanos = -1;

	private volatile boolean closed;

	private volatile boolean readingUptime;

	/** Key the script permission probe reads; inside the key prefix. */
	private final String probeKey;

	/**
	 * Why this node refuses grants (the user may not run the lock scripts), else null.
	 */
	private volatile String refusal;

	/**
	 * The arguments of the last {@code SET NX PX}, reused while the lease is the same.
	 */
	private volatile LeaseArgs lastSetArgs;

	/**
	 * Compare-and-delete commands this node failed without a reply from Redis (rejected
	 * while disconnected, or lost with the connection), to send again once it is back:
	 * the SET they undo may have landed before the drop. Each is dropped once the lease
	 * it undoes is over, so the queue only ever holds what could still be alive.
	 */
	private final ConcurrentLinkedQueue<Redo> redo = new ConcurrentLinkedQueue<>();

	/** A command to send again until {@code until} (nanoTime). */
	private record Redo(Script script, String key, String[] args, long until) {
	}

	/**
	 * Channels whose UNSUBSCRIBE failed without a reply (pub/sub connection down):
	 * Lettuce subscribes them again on reconnect, so they are unsubscribed once it is
	 * back, unless a new wait subscribed them meanwhile.
	 */
	private final java.util.Set<String> unwanted = ConcurrentHashMap.newKeySet();

	/** Redis's own text for the last failed connection attempt, else null. */
	private volatile String connectFailure;

	/**
	 * @param uri the node; its password never leaves this class
	 * @param resources shared Lettuce resources
	 * @param sslOptions TLS settings for a {@code rediss://} node, or null for Lettuce's
	 * defaults
	 * @param commandTimeout Lettuce's own bound on a command, a safety net behind the
	 * per-round node timeout so that commands to a stalled node do not pile up
	 * @param connectTimeout TCP connect timeout
	 * @param probeKey a key under the lock prefix that the script permission probe reads
	 * @param onMessage called with the channel of every release message
	 * @param onError called with every connection failure of this node
	 */
	RedisNode(RedisURI uri, ClientResources resources, SslOptions sslOptions, Duration commandTimeout,
			Duration connectTimeout, ScheduledExecutorService scheduler, LongSupplier nanoClock, String probeKey,
			Consumer<String> onMessage, Consumer<Throwable> onError) {
		this(uri, null, resources, sslOptions, commandTimeout, connectTimeout, scheduler, nanoClock, probeKey,
				onMessage, onError, false);
	}

	/**
	 * A node whose writes that replicas must acknowledge ({@code sync-replicas}) go
	 * through a connection of their own; otherwise as
	 * {@link #RedisNode(RedisURI, ClientResources, SslOptions, Duration, Duration, ScheduledExecutorService, LongSupplier, String, Consumer, Consumer)
	 * the node constructor}.
	 */
	RedisNode(RedisURI uri, ClientResources resources, SslOptions sslOptions, Duration commandTimeout,
			Duration connectTimeout, ScheduledExecutorService scheduler, LongSupplier nanoClock, String probeKey,
			Consumer<String> onMessage, Consumer<Throwable> onError, boolean replicatedWrites) {
		this(uri, null, resources, sslOptions, commandTimeout, connectTimeout, scheduler, nanoClock, probeKey,
				onMessage, onError, replicatedWrites);
	}

	/**
	 * A whole Redis Cluster as one node, reached through any of {@code seeds}; otherwise
	 * as
	 * {@link #RedisNode(RedisURI, ClientResources, SslOptions, Duration, Duration, ScheduledExecutorService, LongSupplier, String, Consumer, Consumer)
	 * the node constructor}.
	 */
	static RedisNode cluster(List<RedisURI> seeds, ClientResources resources, SslOptions sslOptions,
			Duration commandTimeout, Duration connectTimeout, ScheduledExecutorService scheduler,
			LongSupplier nanoClock, String probeKey, Consumer<String> onMessage, Consumer<Throwable> onError) {
		return new RedisNode(null, List.copyOf(seeds), resources, sslOptions, commandTimeout, connectTimeout, scheduler,
				nanoClock, probeKey, onMessage, onError, false);
	}

	private RedisNode(RedisURI uri, List<RedisURI> seeds, ClientResources resources, SslOptions sslOptions,
			Duration commandTimeout, Duration connectTimeout, ScheduledExecutorService scheduler,
			LongSupplier nanoClock, String probeKey, Consumer<String> onMessage, Consumer<Throwable> onError,
			boolean replicatedWrites) {
		this.uri = uri;
		this.replicatedWrites = replicatedWrites && uri != null;
		this.probeKey = probeKey;
		this.address = (uri != null) ? uri.getHost() + ":" + uri.getPort() : clusterAddress(seeds);
		this.scheduler = scheduler;
		this.nanoClock = nanoClock;
		this.onMessage = onMessage;
		this.onError = onError;
		ClientOptions.Builder builder = ClientOptions.builder();
		if (sslOptions != null) {
			builder.sslOptions(sslOptions);
		}
		ClientOptions options = builder.autoReconnect(true)
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.timeoutOptions(TimeoutOptions.enabled(commandTimeout))
			.socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).keepAlive(true).build())
			.build();
		if (uri == null) {
			RedisClusterClient cluster = RedisClusterClient.create(resources, seeds);
			// the same options for every node connection, and a topology that follows
			// MOVED, failovers and reconnects (and is re-read now and then regardless)
			cluster.setOptions(ClusterClientOptions.builder(options)
				.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
					.enableAllAdaptiveRefreshTriggers()
					.enablePeriodicRefresh(CLUSTER_TOPOLOGY_REFRESH)
					.build())
				.build());
			this.client = cluster;
			return;
		}
		RedisClient single = RedisClient.create(resources);
		single.setOptions(options);
		this.client = single;
		this.client.addListener(new RedisConnectionStateListener() {

			@Override
			public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
				if (handler == RedisNode.this.connection) {
					// answers to what is in flight now will come back, if ever, on
					// another connection
					RedisNode.this.epoch.incrementAndGet();
				}
			}

			@Override
			public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress socketAddress) {
				if (handler == RedisNode.this.connection) {
					// a reconnect: the server may be a new process; Lettuce may send
					// again what was in flight, but no answer from before counts now
					RedisNode.this.epoch.incrementAndGet();
					RedisNode.this.scheduler.execute(RedisNode.this::readUptime);
					RedisNode.this.scheduler.execute(RedisNode.this::probeScripts);
					RedisNode.this.scheduler.execute(RedisNode.this::redoPending);
				}
			}

		});
	}

	private static String clusterAddress(List<RedisURI> seeds) {
		if (seeds == null || seeds.isEmpty()) {
			throw new IllegalArgumentException("cluster: at least one seed node is required, got none");
		}
		StringBuilder sb = new StringBuilder("cluster(");
		for (RedisURI seed : seeds) {
			sb.append((sb.length() > 8) ? "," : "").append(seed.getHost()).append(':').append(seed.getPort());
		}
		return sb.append(')').toString();
	}

	/**
	 * Host and port, never credentials; for a cluster {@code cluster(host:port,...)} of
	 * its seeds.
	 */
	@Override
	public String address() {
		return this.address;
	}

	/** Whether this node is a whole Redis Cluster. */
	boolean isCluster() {
		return this.uri == null;
	}

	/**
	 * Whether the connection is open; for a cluster, whether the connection to every
	 * master is (while one is down, the locks in its slots fail).
	 */
	boolean isConnected() {
		StatefulConnection<String, String> c = this.connection;
		if (c == null || !c.isOpen()) {
			return false;
		}
		if (c instanceof StatefulRedisClusterConnection<String, String> cluster) {
			return cluster.getPartitions()
				.stream()
				.filter((node) -> node.is(RedisClusterNode.NodeFlag.UPSTREAM))
				.allMatch(
						(node) -> isOpen(cluster.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())));
		}
		return true;
	}

	private static boolean isOpen(CompletableFuture<? extends StatefulConnection<String, String>> connection) {
		return connection.isDone() && !connection.isCompletedExceptionally() && connection.join().isOpen();
	}

	/**
	 * Redis's or the network's text for the last failed connection attempt, else null.
	 */
	String lastConnectFailure() {
		return this.connectFailure;
	}

	/**
	 * How long the server has been up, as last read; negative while unknown.
	 */
	long uptimeNanos() {
		long started = startedAt();
		return (started == UNKNOWN) ? -1 : this.nanoClock.getAsLong() - started;
	}

	/**
	 * The server's {@code run_id} as read on the connection open now, which tells two
	 * entries that reach the same server apart from two servers; null while unknown.
	 */
	String runId() {
		Start current = this.start;
		return (current.epoch == this.epoch.get()) ? current.runId : null;
	}

	/**
	 * The entry as a URI without credentials, {@code redis://host:port}, for messages.
	 */
	String uriText() {
		if (this.uri == null) {
			return this.address;
		}
		return (this.uri.isSsl() ? "rediss://" : "redis://") + this.address;
	}

	/** When the server started, if read on the connection open now; else UNKNOWN. */
	private long startedAt() {
		Start current = this.start;
		return (current.epoch == this.epoch.get()) ? current.nanos : UNKNOWN;
	}

	/**
	 * The connection epoch now: capture it before sending a command, and count the answer
	 * only if {@link #sameConnection(long)} still holds when it comes back.
	 * @return the current epoch
	 */
	@Override
	public long epoch() {
		return this.epoch.get();
	}

	/**
	 * Whether the connection has neither dropped nor reconnected since {@code epoch}: an
	 * answer to a command sent in {@code epoch} came back on the connection it was sent
	 * on, from the server it was sent to, and not from whatever Lettuce re-sent it to
	 * after a reconnect.
	 */
	@Override
	public boolean sameConnection(long epoch) {
		return this.epoch.get() == epoch;
	}

	long lastLatencyNanos() {
		return this.lastLatencyNanos;
	}

	@Override
	public void recordLatency(long nanos) {
		this.lastLatencyNanos = nanos;
	}

	/**
	 * Keys matching {@code pattern} that have no TTL, by a bounded {@code SCAN}: at most
	 * {@code maxScans} batches, at most {@code limit} keys. On a cluster Lettuce's
	 * {@code SCAN} walks every master in turn, its cursor naming the node.
	 */
	CompletableFuture<List<String>> keysWithoutTtl(String pattern, int limit, int maxScans) {
		RedisClusterAsyncCommands<String, String> c = this.commands;
		if (c == null) {
			return notConnected();
		}
		List<String> found = new CopyOnWriteArrayList<>();
		// Lettuce's cluster SCAN takes its per-node connection synchronously: open them
		// first, and run every step on the scheduler, never on a Netty thread
		CompletableFuture<Void> ready = (this.connection instanceof StatefulRedisClusterConnection<String, String> cluster)
				? byNodeId(cluster) : CompletableFuture.completedFuture(null);
		return ready
			.thenComposeAsync((ok) -> scan(c, ScanCursor.INITIAL, ScanArgs.Builder.matches(pattern).limit(1000), found,
					limit, maxScans), this.scheduler)
			.thenApply((done) -> List.copyOf(found));
	}

	private CompletableFuture<Void> scan(RedisClusterAsyncCommands<String, String> c, ScanCursor cursor, ScanArgs args,
			List<String> found, int limit, int scansLeft) {
		return c.scan(cursor, args).toCompletableFuture().thenCompose((batch) -> {
			CompletableFuture<?>[] ttls = batch.getKeys()
				.stream()
				.map((key) -> c.pttl(key).toCompletableFuture().thenAccept((ttl) -> {
					if (ttl == -1 && found.size() < limit) {
						found.add(key);
					}
				}))
				.toArray(CompletableFuture[]::new);
			return CompletableFuture.allOf(ttls).thenComposeAsync((ok) -> {
				if (batch.isFinished() || found.size() >= limit || scansLeft <= 1) {
					return CompletableFuture.completedFuture(null);
				}
				return scan(c, batch, args, found, limit, scansLeft - 1);
			}, this.scheduler);
		});
	}

	/**
	 * Whether this node may vote under a restart guard of {@code rejoinDelayNanos}: zero
	 * disables the guard; otherwise the server must be known to have been up that long.
	 */
	boolean isVoting(long rejoinDelayNanos) {
		if (rejoinDelayNanos <= 0) {
			return true;
		}
		long started = startedAt();
		return started != UNKNOWN && this.nanoClock.getAsLong() - started >= rejoinDelayNanos;
	}

	/**
	 * Connect in the background, retrying with back-off until connected or closed.
	 * @return the first attempt, completing normally whether it connected or not
	 */
	CompletableFuture<Void> connect() {
		return connect(Duration.ofMillis(100));
	}

	private CompletableFuture<Void> connect(Duration retryIn) {
		if (this.closed) {
			return CompletableFuture.completedFuture(null);
		}
		return connectCommands().thenCompose((conn) -> {
			if (this.closed) {
				conn.closeAsync();
				return CompletableFuture.<Void>completedFuture(null);
			}
			this.connection = conn;
			this.commands = (conn instanceof StatefulRedisClusterConnection<String, String> cluster) ? cluster.async()
					: ((StatefulRedisConnection<String, String>) conn).async();
			this.connectFailure = null;
			// Load the scripts now so that the first EVALSHA finds them (on a cluster
			// Lettuce loads them on every master).
			for (Script script : Script.ALL) {
				this.commands.scriptLoad(script.text());
			}
			return probeScripts().thenCompose((probed) -> connectReplicated())
				.thenCompose((probed) -> (conn instanceof StatefulRedisClusterConnection<String, String> cluster)
						? warmUp(cluster) : readUptime());
		}).exceptionally((error) -> {
			this.connectFailure = Futures.reason(error);
			this.onError.accept(Futures.unwrap(error));
			Duration next = retryIn.multipliedBy(2);
			this.scheduler.schedule(() -> connect((next.compareTo(MAX_CONNECT_RETRY) > 0) ? MAX_CONNECT_RETRY : next),
					retryIn.toMillis(), TimeUnit.MILLISECONDS);
			return null;
		}).toCompletableFuture();
	}

	/**
	 * Open the connection for replicated writes once; Lettuce reconnects it by itself
	 * afterwards.
	 */
	private CompletableFuture<Void> connectReplicated() {
		if (!this.replicatedWrites || this.replicated != null) {
			return CompletableFuture.completedFuture(null);
		}
		return ((RedisClient) this.client).connectAsync(StringCodec.UTF8, this.uri)
			.toCompletableFuture()
			.thenAccept((conn) -> {
				if (this.closed) {
					conn.closeAsync();
					return;
				}
				this.replicatedConnection = conn;
				this.replicated = conn.async();
			});
	}

	private CompletableFuture<? extends StatefulConnection<String, String>> connectCommands() {
		if (this.client instanceof RedisClusterClient cluster) {
			// the async connect needs the topology loaded first (and again after a
			// failure)
			return cluster.refreshPartitionsAsync()
				.toCompletableFuture()
				.thenCompose((loaded) -> cluster.connectAsync(StringCodec.UTF8));
		}
		return ((RedisClient) this.client).connectAsync(StringCodec.UTF8, this.uri).toCompletableFuture();
	}

	/**
	 * Open the connection to every master now (Lettuce opens them on first use, which the
	 * first lock would pay for within its node timeout) and take the slowest {@code PING}
	 * as the cluster's latency for status. Its uptime stays unknown: single mode has no
	 * restart guard, and a cluster has no one uptime.
	 */
	private CompletableFuture<Void> warmUp(StatefulRedisClusterConnection<String, String> cluster) {
		long sent = this.nanoClock.getAsLong();
		CompletableFuture<?>[] pings = cluster.getPartitions()
			.stream()
			.filter((node) -> node.is(RedisClusterNode.NodeFlag.UPSTREAM))
			// by host and port: the connections commands are routed through by slot
			.map((node) -> cluster.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())
				.thenCompose((conn) -> conn.async().ping().toCompletableFuture()))
			.toArray(CompletableFuture[]::new);
		return CompletableFuture.allOf(pings).handle((ok, error) -> {
			if (error == null) {
				this.lastLatencyNanos = this.nanoClock.getAsLong() - sent;
			}
			return null;
		});
	}

	/**
	 * The connection to every master by node id, the ones Lettuce's cluster {@code SCAN}
	 * uses.
	 */
	private static CompletableFuture<Void> byNodeId(StatefulRedisClusterConnection<String, String> cluster) {
		return CompletableFuture.allOf(cluster.getPartitions()
			.stream()
			.filter((node) -> node.is(RedisClusterNode.NodeFlag.UPSTREAM))
			.map((node) -> cluster.getConnectionAsync(node.getNodeId()))
			.toArray(CompletableFuture[]::new));
	}

	/**
	 * Read the uptime again if it is unknown on a live connection: a safety net behind
	 * the reconnect listener, run every second by the engine. Never on a cluster.
	 */
	void refreshIfUnknown() {
		if (startedAt() == UNKNOWN && !isCluster() && isConnected() && !this.readingUptime) {
			readUptime();
		}
	}

	/**
	 * Read the server's uptime and so its start; retried while it fails and the node is
	 * up.
	 */
	private CompletableFuture<Void> readUptime() {
		RedisClusterAsyncCommands<String, String> c = this.commands;
		if (c == null || this.closed) {
			return CompletableFuture.completedFuture(null);
		}
		this.readingUptime = true;
		long epoch = this.epoch.get();
		long sent = this.nanoClock.getAsLong();
		return c.info("server").toCompletableFuture().handle((info, error) -> {
			this.readingUptime = false;
			long now = this.nanoClock.getAsLong();
			if (!sameConnection(epoch)) {
				// sent before a reconnect and perhaps answered by a new server: its
				// uptime is from after "sent", so the start would come out too early;
				// the reconnect reads it again
				return null;
			}
			if (error != null || info == null) {
				if (!this.closed && isConnected()) {
					this.scheduler.schedule(this::readUptime, 1, TimeUnit.SECONDS);
				}
				return null;
			}
			this.lastLatencyNanos = now - sent;
			long uptimeSeconds = parseUptimeSeconds(info);
			// uptime is floored to whole seconds, so this start is never earlier than the
			// real one
			// tagged with its epoch: believed only while that connection lasts
			this.start = new Start(epoch,
					(uptimeSeconds < 0) ? UNKNOWN : sent - TimeUnit.SECONDS.toNanos(uptimeSeconds), parseRunId(info));
			return null;
		});
	}

	/** The {@code run_id} line of {@code INFO server}; null if there is none. */
	static String parseRunId(String info) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("run_id:")) {
				String id = line.substring("run_id:".length()).trim();
				return id.isEmpty() ? null : id;
			}
		}
		return null;
	}

	static long parseUptimeSeconds(String info) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("uptime_in_seconds:")) {
				try {
					return Long.parseLong(line.substring("uptime_in_seconds:".length()).trim());
				}
				catch (NumberFormatException ex) {
					return -1;
				}
			}
		}
		return -1;
	}

	/**
	 * Run the release script once on a key no lock uses (it only reads it): a user whose
	 * ACL forbids the scripts or the commands inside them ({@code NOPERM}) could take a
	 * lock with {@code SET} but never renew nor release it, so such a node refuses grants
	 * until a later probe (on the next reconnect) succeeds.
	 */
	private CompletableFuture<Void> probeScripts() {
		if (this.commands == null || this.closed) {
			return CompletableFuture.completedFuture(null);
		}
		return eval(Script.RELEASE, this.probeKey, "-", LockKeys.channel(this.probeKey)).handle((result, error) -> {
			String text = (error != null) ? Futures.reason(error) : null;
			if (text == null || text.contains("NOPERM")) {
				this.refusal = text;
			}
			return null;
		});
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
		String refused = this.refusal;
		if (refused != null) {
			return CompletableFuture.failedFuture(new RedisCommandExecutionException(
					"refuses grants, this user may not run the lock scripts: " + refused));
		}
		return c.set(key, token, setArgs(leaseMillis));
	}

	/** Whether a {@code SET NX} reply says the key was set. */
	static boolean isSet(String reply) {
		return "OK".equals(reply);
	}

	/**
	 * {@code NX PX lease} for a lease, the last one kept: a service uses a few leases,
	 * and Lettuce only reads the arguments.
	 */
	private SetArgs setArgs(long leaseMillis) {
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

	/** A server's start and run_id as read in one connection epoch; immutable. */
	private record Start(long epoch, long nanos, String runId) {
	}

	/**
	 * {@code SET key token NX PX lease} on the replicated-writes connection, followed
	 * there by {@code WAIT} if it set the key: completes with the reply once
	 * {@code replicas} replicas acknowledged it, else exceptionally.
	 */
	CompletableFuture<String> setIfAbsent(String key, String token, long leaseMillis, int replicas,
			long timeoutMillis) {
		RedisClusterAsyncCommands<String, String> c = this.replicated;
		if (c == null) {
			return notReplicated();
		}
		String refused = this.refusal;
		if (refused != null) {
			return CompletableFuture.failedFuture(new RedisCommandExecutionException(
					"refuses grants, this user may not run the lock scripts: " + refused));
		}
		return thenAwaitReplicas(c, c.set(key, token, setArgs(leaseMillis)), RedisNode::isSet, replicas, timeoutMillis);
	}

	/**
	 * A script on the replicated-writes connection, followed there by {@code WAIT} if
	 * {@code wrote} says it changed something: completes with the script's answer once
	 * {@code replicas} replicas acknowledged it, else exceptionally.
	 */
	CompletableFuture<Long> evalReplicated(Script script, String[] keys, Predicate<Long> wrote, int replicas,
			long timeoutMillis, String... args) {
		RedisClusterAsyncCommands<String, String> c = this.replicated;
		if (c == null) {
			return notReplicated();
		}
		return thenAwaitReplicas(c, eval(c, script, keys, args), wrote, replicas, timeoutMillis);
	}

	private <T> CompletableFuture<T> notReplicated() {
		if (!this.replicatedWrites) {
			return CompletableFuture.failedFuture(new UnsupportedOperationException(
					"sync-replicas is not supported " + (isCluster() ? "on a Redis Cluster" : "on this node")));
		}
		return notConnected();
	}

	/**
	 * The write, then (if it wrote) {@code WAIT} on the same connection: sent from the
	 * I/O thread that completes the write, without blocking it.
	 */
	private static <T> CompletableFuture<T> thenAwaitReplicas(RedisClusterAsyncCommands<String, String> c,
			CompletionStage<T> write, Predicate<? super T> wrote, int replicas, long timeoutMillis) {
		return write.toCompletableFuture()
			.thenCompose(
					(reply) -> wrote.test(reply) ? awaitReplicas(c, replicas, timeoutMillis).thenApply((ok) -> reply)
							: CompletableFuture.completedFuture(reply));
	}

	/**
	 * {@code WAIT replicas timeout}: completes normally once at least {@code replicas}
	 * replicas acknowledged every write of this connection so far, else exceptionally.
	 */
	private static CompletableFuture<Void> awaitReplicas(RedisClusterAsyncCommands<String, String> c, int replicas,
			long timeoutMillis) {
		return c.waitForReplication(replicas, timeoutMillis).toCompletableFuture().thenAccept((acked) -> {
			if (acked < replicas) {
				throw new CompletionException(new RedisConnectionException("WAIT: " + acked + " of " + replicas
						+ " replicas acknowledged within " + timeoutMillis + " ms (sync-replicas)"));
			}
		});
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

	private static CompletableFuture<Long> eval(RedisClusterAsyncCommands<String, String> c, Script script,
			String[] keys, String... args) {
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
		return evalRedone(new Redo(script, key, args, this.nanoClock.getAsLong() + aliveNanos));
	}

	private CompletableFuture<Long> evalRedone(Redo command) {
		CompletableFuture<Long> reply = eval(command.script(), command.key(), command.args());
		reply.whenComplete((value, error) -> {
			if (error != null && !(Futures.unwrap(error) instanceof RedisCommandExecutionException) && !this.closed) {
				this.redo.add(command);
				if (isConnected()) {
					// back already (or never gone: a command timeout): no reconnect will
					// come to send it
					this.scheduler.execute(this::redoPending);
				}
			}
		});
		return reply;
	}

	/**
	 * Send the pending redos again, dropping those whose lease is over; called on every
	 * reconnect and by the engine's periodic check.
	 */
	void redoPending() {
		if (this.redo.isEmpty() || !isConnected() || this.closed) {
			return;
		}
		long now = this.nanoClock.getAsLong();
		for (int n = this.redo.size(); n > 0; n--) {
			Redo command = this.redo.poll();
			if (command == null) {
				return;
			}
			if (command.until() - now > 0) {
				evalRedone(command);
			}
		}
	}

	/** Commands waiting to be sent again, for tests. */
	int pendingRedos() {
		return this.redo.size();
	}

	/** Subscribe to a release channel; completes when the subscription is confirmed. */
	@Override
	public CompletableFuture<Void> subscribe(String channel) {
		this.unwanted.remove(channel);
		return pubSub().thenCompose((ps) -> ps.async().subscribe(channel).toCompletableFuture());
	}

	/**
	 * Unsubscribe from a release channel; if the pub/sub connection is down, once it is
	 * back.
	 */
	@Override
	public void unsubscribe(String channel) {
		CompletableFuture<StatefulRedisPubSubConnection<String, String>> ps = this.pubSub.get();
		if (ps != null && ps.isDone() && !ps.isCompletedExceptionally()) {
			ps.join().async().unsubscribe(channel).toCompletableFuture().whenComplete((ok, error) -> {
				if (error != null && !(Futures.unwrap(error) instanceof RedisCommandExecutionException)
						&& !this.closed) {
					this.unwanted.add(channel);
				}
			});
		}
	}

	/**
	 * Unsubscribe the channels whose UNSUBSCRIBE was lost, once the pub/sub connection is
	 * open; on every pub/sub reconnect and by the engine's periodic check.
	 */
	void unsubscribeUnwanted() {
		CompletableFuture<StatefulRedisPubSubConnection<String, String>> ps = this.pubSub.get();
		if (this.unwanted.isEmpty() || ps == null || !ps.isDone() || ps.isCompletedExceptionally()
				|| !ps.join().isOpen()) {
			return;
		}
		for (String channel : List.copyOf(this.unwanted)) {
			if (this.unwanted.remove(channel)) {
				unsubscribe(channel);
			}
		}
	}

	/** The pub/sub connection, made on first use and again after a failed attempt. */
	private CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubSub() {
		while (true) {
			CompletableFuture<StatefulRedisPubSubConnection<String, String>> current = this.pubSub.get();
			if (current != null && !current.isCompletedExceptionally()) {
				return current;
			}
			CompletableFuture<StatefulRedisPubSubConnection<String, String>> created = new CompletableFuture<>();
			if (!this.pubSub.compareAndSet(current, created)) {
				continue;
			}
			// Only the winner of the compare-and-set connects, so there is one
			// connection.
			connectPubSub().whenComplete((conn, error) -> {
				if (error != null) {
					created.completeExceptionally(error);
					return;
				}
				conn.addListener(new RedisConnectionStateListener() {
					@Override
					public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
						RedisNode.this.scheduler.execute(RedisNode.this::unsubscribeUnwanted);
					}
				});
				conn.addListener(new RedisPubSubAdapter<>() {
					@Override
					public void message(String channel, String message) {
						RedisNode.this.onMessage.accept(channel);
					}
				});
				if (this.closed) {
					conn.closeAsync();
				}
				created.complete(conn);
			});
			return created;
		}
	}

	/**
	 * On a cluster the pub/sub connection is to one node: a plain {@code PUBLISH} reaches
	 * the subscribers on every node of a Redis Cluster.
	 */
	private CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> connectPubSub() {
		if (this.client instanceof RedisClusterClient cluster) {
			return cluster.connectPubSubAsync(StringCodec.UTF8);
		}
		return ((RedisClient) this.client).connectPubSubAsync(StringCodec.UTF8, this.uri).toCompletableFuture();
	}

	private <T> CompletableFuture<T> notConnected() {
		String last = this.connectFailure;
		return CompletableFuture.failedFuture(
				new RedisConnectionException("not connected" + ((last != null) ? ", last attempt: " + last : "")));
	}

	@Override
	public void close() {
		this.closed = true;
		CompletableFuture<StatefulRedisPubSubConnection<String, String>> ps = this.pubSub.get();
		if (ps != null && ps.isDone() && !ps.isCompletedExceptionally()) {
			ps.join().close();
		}
		StatefulConnection<String, String> c = this.connection;
		if (c != null) {
			c.close();
		}
		StatefulConnection<String, String> r = this.replicatedConnection;
		if (r != null) {
			r.close();
		}
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@Override
	public String toString() {
		return this.address;
	}

}
