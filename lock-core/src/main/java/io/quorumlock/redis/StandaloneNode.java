package io.quorumlock.redis;

import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * One Redis server, through Lettuce's {@link RedisClient}. For the restart guard the node
 * knows when its server started ({@link ServerStart}): read from {@code INFO server} on
 * every (re)connect, never on the acquire path. From the moment the connection drops
 * until that read succeeds again the start is unknown and the node does not vote, so a
 * server that restarted (which always breaks the connection) can never vote early.
 */
final class StandaloneNode extends RedisNode {

	private final RedisClient client;

	/** The node; its password never leaves this class. */
	private final RedisURI uri;

	private final ServerStart start;

	/** The connection for writes followed by {@code WAIT}; null when not used. */
	private final ReplicatedWrites replicated;

	/**
	 * @param uri the node
	 * @param context what the engine's nodes share
	 * @param replicatedWrites whether writes that replicas must acknowledge
	 * ({@code sync-replicas}) go through a connection of their own
	 */
	StandaloneNode(RedisURI uri, NodeContext context, boolean replicatedWrites) {
		this(uri, context, replicatedWrites, RedisClient.create(context.resources()));
	}

	private StandaloneNode(RedisURI uri, NodeContext context, boolean replicatedWrites, RedisClient client) {
		super(uri.getHost() + ":" + uri.getPort(), client, context);
		this.client = client;
		this.uri = uri;
		this.start = new ServerStart(this::epoch, this.nanoClock);
		this.replicated = replicatedWrites ? new ReplicatedWrites(client, uri, this::isClosed) : null;
		client.setOptions(context.clientOptions());
		client.addListener(new RedisConnectionStateListener() {

			@Override
			public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
				if (handler == connection()) {
					// answers to what is in flight now will come back, if ever, on
					// another connection
					newEpoch();
				}
			}

			@Override
			public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress socketAddress) {
				if (handler == connection()) {
					// a reconnect: the server may be a new process; Lettuce may send
					// again what was in flight, but no answer from before counts now
					newEpoch();
					StandaloneNode.this.scheduler.execute(StandaloneNode.this::readUptime);
					StandaloneNode.this.scheduler.execute(StandaloneNode.this::probeScripts);
					StandaloneNode.this.scheduler.execute(StandaloneNode.this::redoPending);
				}
			}

		});
	}

	@Override
	CompletableFuture<StatefulRedisConnection<String, String>> connectCommands() {
		return this.client.connectAsync(StringCodec.UTF8, this.uri).toCompletableFuture();
	}

	@Override
	RedisClusterAsyncCommands<String, String> commandsOf(StatefulConnection<String, String> connection) {
		return ((StatefulRedisConnection<String, String>) connection).async();
	}

	@Override
	CompletableFuture<Void> afterConnect(StatefulConnection<String, String> connection) {
		CompletableFuture<Void> replicatedOpen = (this.replicated != null) ? this.replicated.connect()
				: CompletableFuture.completedFuture(null);
		return replicatedOpen.thenCompose((opened) -> readUptime());
	}

	@Override
	CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
		return this.client.connectPubSubAsync(StringCodec.UTF8, this.uri).toCompletableFuture();
	}

	@Override
	boolean isConnected() {
		StatefulConnection<String, String> c = connection();
		return c != null && c.isOpen();
	}

	@Override
	String uriText() {
		return (this.uri.isSsl() ? "rediss://" : "redis://") + address();
	}

	@Override
	long uptimeNanos() {
		return this.start.uptimeNanos();
	}

	@Override
	String runId() {
		return this.start.runId();
	}

	@Override
	boolean isVoting(long rejoinDelayNanos) {
		return this.start.isVoting(rejoinDelayNanos);
	}

	/**
	 * Read the uptime again if it is unknown on a live connection: a safety net behind
	 * the reconnect listener, run every second by the engine.
	 */
	@Override
	void refreshIfUnknown() {
		if (this.start.startedAt() == ServerStart.UNKNOWN && isConnected() && !this.start.isReading()) {
			readUptime();
		}
	}

	/**
	 * Read the server's uptime and so its start; retried while it fails and the node is
	 * up. An answer from an earlier connection is dropped: the reconnect reads it again.
	 */
	private CompletableFuture<Void> readUptime() {
		RedisClusterAsyncCommands<String, String> c = commands();
		if (c == null || isClosed()) {
			return CompletableFuture.completedFuture(null);
		}
		return this.start.read(() -> c.info("server"), this::recordLatency).thenAccept((read) -> {
			if (read == ServerStart.Read.FAILED && !isClosed() && isConnected()) {
				this.scheduler.schedule(this::readUptime, 1, TimeUnit.SECONDS);
			}
		});
	}

	@Override
	CompletableFuture<String> setIfAbsent(String key, String token, long leaseMillis, int replicas,
			long timeoutMillis) {
		CompletableFuture<String> unavailable = replicatedUnavailable();
		if (unavailable != null) {
			return unavailable;
		}
		CompletableFuture<String> refused = refused();
		if (refused != null) {
			return refused;
		}
		return this.replicated.setIfAbsent(key, token, setArgs(leaseMillis), replicas, timeoutMillis);
	}

	@Override
	CompletableFuture<Long> evalReplicated(Script script, String[] keys, Predicate<Long> wrote, int replicas,
			long timeoutMillis, String... args) {
		CompletableFuture<Long> unavailable = replicatedUnavailable();
		return (unavailable != null) ? unavailable
				: this.replicated.eval(script, keys, wrote, replicas, timeoutMillis, args);
	}

	/** The failure of a replicated write that cannot be sent now, else null. */
	private <T> CompletableFuture<T> replicatedUnavailable() {
		if (this.replicated == null) {
			return CompletableFuture
				.failedFuture(new UnsupportedOperationException("sync-replicas is not supported on this node"));
		}
		return this.replicated.isOpened() ? null : notConnected();
	}

	@Override
	void closeOthers() {
		if (this.replicated != null) {
			this.replicated.close();
		}
	}

}
