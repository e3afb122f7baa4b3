package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.stream.Stream;

import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * A whole Redis Cluster as the one node of single mode, through Lettuce's
 * {@link RedisClusterClient}: one cluster connection that routes each command by the hash
 * slot of its first key (every script declares all its keys, and all keys of one lock
 * share the slot of its hash tag), follows {@code MOVED} and refreshes the topology. It
 * tracks no uptime (single mode has no restart guard, and a cluster has no one uptime),
 * scans every master for leaks and has no {@code WAIT} (the engine refuses sync-replicas
 * on a cluster). Its connection epoch never changes.
 */
final class ClusterNode extends RedisNode {

	private static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(60);

	private final RedisClusterClient client;

	/**
	 * @param seeds any nodes of the cluster
	 * @param context what the engine's nodes share
	 */
	ClusterNode(List<RedisURI> seeds, NodeContext context) {
		// the seeds are checked before a client is made of them
		this(address(seeds), context, RedisClusterClient.create(context.resources(), List.copyOf(seeds)));
	}

	private ClusterNode(String address, NodeContext context, RedisClusterClient client) {
		super(address, client, context);
		this.client = client;
		// the same options for every node connection, and a topology that follows
		// MOVED, failovers and reconnects (and is re-read now and then regardless)
		client.setOptions(ClusterClientOptions.builder(context.clientOptions())
			.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
				.enableAllAdaptiveRefreshTriggers()
				.enablePeriodicRefresh(TOPOLOGY_REFRESH)
				.build())
			.build());
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
	CompletableFuture<StatefulRedisClusterConnection<String, String>> connectCommands() {
		// the async connect needs the topology loaded first (and again after a failure)
		return this.client.refreshPartitionsAsync()
			.toCompletableFuture()
			.thenCompose((loaded) -> this.client.connectAsync(StringCodec.UTF8));
	}

	@Override
	RedisClusterAsyncCommands<String, String> commandsOf(StatefulConnection<String, String> connection) {
		return ((StatefulRedisClusterConnection<String, String>) connection).async();
	}

	/**
	 * Open the connection to every master now (Lettuce opens them on first use, which the
	 * first lock would pay for within its node timeout) and take the slowest {@code PING}
	 * as the cluster's latency for status.
	 */
	@Override
	CompletableFuture<Void> afterConnect(StatefulConnection<String, String> connection) {
		StatefulRedisClusterConnection<String, String> cluster = (StatefulRedisClusterConnection<String, String>) connection;
		long sent = this.nanoClock.getAsLong();
		CompletableFuture<?>[] pings = masters(cluster)
			// by host and port: the connections commands are routed through by slot
			.map((node) -> cluster.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())
				.thenCompose((conn) -> conn.async().ping().toCompletableFuture()))
			.toArray(CompletableFuture[]::new);
		return CompletableFuture.allOf(pings).handle((ok, error) -> {
			if (error == null) {
				recordLatency(this.nanoClock.getAsLong() - sent);
			}
			return null;
		});
	}

	/**
	 * The pub/sub connection is to one node: a plain {@code PUBLISH} reaches the
	 * subscribers on every node of a Redis Cluster.
	 */
	@Override
	CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> connectPubSub() {
		return this.client.connectPubSubAsync(StringCodec.UTF8);
	}

	/**
	 * Whether the connection to every master is open (while one is down, the locks in its
	 * slots fail).
	 */
	@Override
	boolean isConnected() {
		if (!(connection() instanceof StatefulRedisClusterConnection<String, String> cluster) || !cluster.isOpen()) {
			return false;
		}
		return masters(cluster)
			.allMatch((node) -> isOpen(cluster.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())));
	}

	private static boolean isOpen(CompletableFuture<? extends StatefulConnection<String, String>> connection) {
		return connection.isDone() && !connection.isCompletedExceptionally() && connection.join().isOpen();
	}

	private static Stream<RedisClusterNode> masters(StatefulRedisClusterConnection<String, String> cluster) {
		return cluster.getPartitions().stream().filter((node) -> node.is(RedisClusterNode.NodeFlag.UPSTREAM));
	}

	/**
	 * Lettuce's cluster {@code SCAN} takes its per-node connection synchronously: the
	 * connection to every master by node id, the ones it uses, is opened first.
	 */
	@Override
	CompletableFuture<Void> scanReady() {
		StatefulRedisClusterConnection<String, String> cluster = (StatefulRedisClusterConnection<String, String>) connection();
		return CompletableFuture.allOf(masters(cluster).map((node) -> cluster.getConnectionAsync(node.getNodeId()))
			.toArray(CompletableFuture[]::new));
	}

	@Override
	String uriText() {
		return address();
	}

	@Override
	long uptimeNanos() {
		return -1;
	}

	@Override
	String runId() {
		return null;
	}

	@Override
	boolean isVoting(long rejoinDelayNanos) {
		return rejoinDelayNanos <= 0;
	}

	@Override
	void refreshIfUnknown() {
		// no uptime to read: single mode has no restart guard
	}

	@Override
	CompletableFuture<String> setIfAbsent(String key, String token, long leaseMillis, int replicas,
			long timeoutMillis) {
		return noReplicas();
	}

	@Override
	CompletableFuture<Long> evalReplicated(Script script, String[] keys, Predicate<Long> wrote, int replicas,
			long timeoutMillis, String... args) {
		return noReplicas();
	}

	private static <T> CompletableFuture<T> noReplicas() {
		return CompletableFuture
			.failedFuture(new UnsupportedOperationException("sync-replicas is not supported on a Redis Cluster"));
	}

}
