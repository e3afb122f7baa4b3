package io.quorumlock.redis.node;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.stream.Stream;

import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;

/**
 * A {@link Transport} to a whole Redis Cluster, the one node of single mode, through
 * Lettuce's {@link RedisClusterClient}: one cluster connection that routes each command
 * by the hash slot of its first key (every script declares all its keys, and all keys of
 * one lock share the slot of its hash tag), follows {@code MOVED} and refreshes the
 * topology. It answers for no one server: no uptime, no dataset marker (single mode has
 * no restart guard), no renewal batches (one script cannot run on keys of several slots)
 * and no {@code WAIT} (the engine refuses sync-replicas on a cluster). Its link tells of
 * no drop or reconnect: the cluster connection stays one while Lettuce reconnects its
 * per-node connections underneath.
 */
public final class ClusterTransport implements Transport {

	private static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(60);

	private final RedisClusterClient client;

	private final String address;

	private final Executor executor;

	private volatile StatefulConnection<String, String> opened;

	/**
	 * @param seeds any nodes of the cluster
	 * @param context what the engine's nodes share
	 */
	public ClusterTransport(List<RedisURI> seeds, LettuceContext context) {
		this.address = address(seeds); // the seeds are checked before a client is made
		this.client = RedisClusterClient.create(context.resources(), List.copyOf(seeds));
		// the same options for every node connection, and a topology that follows
		// MOVED, failovers and reconnects (and is re-read now and then regardless)
		this.client.setOptions(ClusterClientOptions.builder(context.clientOptions())
			.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
				.enableAllAdaptiveRefreshTriggers()
				.enablePeriodicRefresh(TOPOLOGY_REFRESH)
				.build())
			.build());
		this.executor = context.timers()::execute;
	}

	/** {@code cluster(host:port,...)} of the seeds, never credentials. */
	private static String address(List<RedisURI> seeds) {
		if (seeds == null || seeds.isEmpty()) {
			throw new IllegalArgumentException("cluster: at least one seed node is required, got none");
		}
		StringBuilder sb = new StringBuilder("cluster(");
		for (RedisURI seed : seeds) {
			sb.append((sb.length() > 8) ? "," : "").append(seed.getHost()).append(':').append(seed.getPort());
		}
		return sb.append(')').toString();
	}

	@Override
	public String address() {
		return this.address;
	}

	@Override
	public String uriText() {
		return this.address;
	}

	@Override
	public boolean isOneServer() {
		return false;
	}

	/**
	 * Load the topology (the async connect needs it, again after a failure), connect,
	 * then open the connection to every master now: Lettuce opens them on first use,
	 * which the first lock would pay for within its node timeout.
	 */
	@Override
	public CompletableFuture<Link> connect(Link.Events events) {
		return this.client.refreshPartitionsAsync()
			.toCompletableFuture()
			.thenCompose((loaded) -> this.client.connectAsync(StringCodec.UTF8))
			.thenCompose((cluster) -> {
				this.opened = cluster;
				CompletableFuture<?>[] pings = masters(cluster)
					// by host and port: the connections commands are routed through by
					// slot
					.map((node) -> cluster.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())
						.thenCompose((conn) -> conn.async().ping().toCompletableFuture()))
					.toArray(CompletableFuture[]::new);
				return CompletableFuture.allOf(pings).handle((ok, error) -> new ClusterLink(cluster, this.executor));
			});
	}

	@Override
	public CompletableFuture<Link.Subscriber> connectPubSub(BiConsumer<String, String> onMessage,
			Runnable onReconnected) {
		// a plain PUBLISH reaches the subscribers on every node of a Redis Cluster
		return this.client.connectPubSubAsync(StringCodec.UTF8)
			.thenApply((conn) -> LettuceTransport.subscriber(conn, onMessage, onReconnected));
	}

	@Override
	public void close() {
		StatefulConnection<String, String> c = this.opened;
		if (c != null) {
			c.close();
		}
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@Override
	public String toString() {
		return this.address;
	}

	private static Stream<RedisClusterNode> masters(StatefulRedisClusterConnection<String, String> cluster) {
		return cluster.getPartitions().stream().filter((node) -> node.is(RedisClusterNode.NodeFlag.UPSTREAM));
	}

	/** The cluster connection: open only while the connection to every master is. */
	private static final class ClusterLink extends LettuceLink {

		private final StatefulRedisClusterConnection<String, String> cluster;

		ClusterLink(StatefulRedisClusterConnection<String, String> cluster, Executor executor) {
			super(cluster, cluster.async(), executor);
			this.cluster = cluster;
		}

		/** While one master is down, the locks in its slots fail. */
		@Override
		public boolean isOpen() {
			return this.cluster.isOpen() && masters(this.cluster).allMatch((node) -> isOpen(
					this.cluster.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())));
		}

		private static boolean isOpen(CompletableFuture<? extends StatefulConnection<String, String>> connection) {
			return connection.isDone() && !connection.isCompletedExceptionally() && connection.join().isOpen();
		}

		/**
		 * Lettuce's cluster {@code SCAN} takes its per-node connection synchronously: the
		 * connection to every master by node id, the ones it uses, is opened first.
		 */
		@Override
		CompletionStage<Void> scanReady() {
			return CompletableFuture
				.allOf(masters(this.cluster).map((node) -> this.cluster.getConnectionAsync(node.getNodeId()))
					.toArray(CompletableFuture[]::new));
		}

	}

}
