package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.resource.ClientResources;

/**
 * The node settings {@link QuorumLockEngine.Builder} collects, and their setters: where
 * the masters (or the cluster) are, how to reach them, and what is asked of their
 * replicas. The root of the builder's bases; users see the setters on
 * {@code QuorumLockEngine.Builder}.
 */
abstract sealed class NodeSettingsBuilder permits TimingSettingsBuilder {

	final List<String> uris = new ArrayList<>();

	final List<RedisURI> redisUris = new ArrayList<>();

	final List<RedisURI> clusterSeeds = new ArrayList<>();

	ClientResources clientResources;

	SslOptions sslOptions;

	final Set<String> freshRunIds = new LinkedHashSet<>();

	int syncReplicas;

	boolean evictionAllowed;

	NodeSettingsBuilder() {
	}

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

}
