package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

import io.quorumlock.aop.DistributedLockAdvisor;

/**
 * Configuration properties of quorumlock ({@code quorumlock.*}). A property under
 * {@code quorumlock.} that is not one of these stops the start-up, with the nearest valid
 * name ({@link UnknownQuorumLockPropertyFailureAnalyzer}): a typo such as
 * {@code quorumlock.node} must not silently fall back to single mode.
 */
@ConfigurationProperties(prefix = "quorumlock", ignoreUnknownFields = false)
public class QuorumLockProperties extends LockDefaultsProperties {

	/**
	 * Whether to enable distributed locks: the engine, the @DistributedLock aspect and
	 * the start-up checks.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of every key the locks use, on Redis and on etcd.
	 */
	private String keyPrefix = "lock:";

	/**
	 * Independent Redis masters for the Redlock quorum, each a URI
	 * (redis://host:port[/db] or rediss:// for TLS) or an object with uri, username and
	 * password. Empty means single mode on the application's spring.data.redis
	 * connection.
	 */
	private List<NodeProperties> nodes = new ArrayList<>();

	/**
	 * etcd cluster to lock on instead of Redis (needs io.quorumlock:lock-etcd).
	 */
	@NestedConfigurationProperty
	private final EtcdProperties etcd = new EtcdProperties();

	/**
	 * Bound on each node's answer in a round's first attempt; a round that silence left
	 * undecided is retried with a longer one, within the retry budget. Must stay below a
	 * third of every lease. Default: 50ms with several masters; with one node (single
	 * mode, or one master listed) spring.data.redis.timeout when single mode uses the
	 * application's connection and sets it, else 1s; a default never exceeds a quarter of
	 * the shortest lease declared.
	 */
	private Duration nodeTimeout;

	/**
	 * Share of a lease assumed lost to clock drift between nodes, in [0, 0.5).
	 */
	private double clockDriftFactor = 0.01;

	/**
	 * Jittered delay between attempts while waiting, either as 'min..max' (such as
	 * '10ms..200ms') or as the nested min and max properties.
	 */
	@NestedConfigurationProperty
	private RetryDelay retryDelay = new RetryDelay();

	/**
	 * How long a call goes on retrying, beyond its wait-at-most, rounds that no answer
	 * decided: masters that did not answer within the node timeout (a stalled client: a
	 * throttled pod, a GC pause; or a stalled master), a transient refusal (NOSCRIPT
	 * after a flush, LOADING) or a reconnect in progress. A master that did not answer is
	 * unknown, never 'held elsewhere': wait-at-most is about other holders, this budget
	 * about slowness, so even a call with wait-at-most 0 rides out a stall this long.
	 * Zero turns it off.
	 */
	private Duration retryBudget = Duration.ofSeconds(1);

	/**
	 * Restart guard: a master that lost its data (restarted empty, flushed, or another
	 * server behind its address, detected by its missing dataset marker) does not count
	 * toward a quorum until this long after it was first seen so. Empty means the longest
	 * lease declared (quorumlock.lease, every instance lease and every @DistributedLock
	 * lease), fixed at start-up; a longer lease is refused at call time, and a value
	 * shorter than a declared lease stops the start-up. Zero turns the guard off. Single
	 * mode has no guard. Masters hold back for the longest guard any instance using them
	 * records.
	 */
	private Duration rejoinDelay;

	/**
	 * run_ids (from INFO server) of masters started brand new for a new deployment: the
	 * restart guard marks them at once instead of holding them back; a restart gives a
	 * new run_id and the guard applies again if the data was lost. Only for masters on
	 * which no lease was ever granted before these processes started.
	 */
	private List<String> freshMasterRunIds = new ArrayList<>();

	/**
	 * Replicas that must acknowledge each grant (Redis WAIT) before it counts, to narrow
	 * the failover window of a master with replicas.
	 */
	private int syncReplicas;

	/**
	 * Whether masters that can evict lock keys (a maxmemory limit with a maxmemory-policy
	 * other than noeviction) still count: by default they do not vote in quorum mode and
	 * refuse grants in single mode, since under memory pressure they drop held lock keys
	 * and grant them again.
	 */
	private boolean allowEvictingMasters;

	/**
	 * FencingProperties token settings.
	 */
	@NestedConfigurationProperty
	private final FencingProperties fencing = new FencingProperties();

	/**
	 * The commit guard of transactions begun under a lock.
	 */
	@NestedConfigurationProperty
	private final CommitGuardProperties commitGuard = new CommitGuardProperties();

	/**
	 * Longest lock key accepted, in characters: the evaluated key, before the prefix and
	 * the name are added. A longer key is refused before anything is sent to Redis.
	 */
	private int maxKeyLength = 512;

	/**
	 * TLS settings of the rediss:// nodes.
	 */
	@NestedConfigurationProperty
	private final Ssl ssl = new Ssl();

	/**
	 * Order of the {@code @DistributedLock} advisor. The default has a higher precedence
	 * than {@code @Transactional} at its default order, so locks are released after
	 * commit or rollback.
	 */
	private int aspectOrder = DistributedLockAdvisor.DEFAULT_ORDER;

	/**
	 * Metrics settings.
	 */
	@NestedConfigurationProperty
	private final Metrics metrics = new Metrics();

	/**
	 * Actuator settings.
	 */
	@NestedConfigurationProperty
	private final Actuator actuator = new Actuator();

	/**
	 * Problem details answered to HTTP callers for lock failures.
	 */
	@NestedConfigurationProperty
	private final ProblemDetails problemDetails = new ProblemDetails();

	/**
	 * Per-name lock options, applied to locks with that name unless the annotation or
	 * request sets its own.
	 */
	private Map<String, Instance> instances = new LinkedHashMap<>();

	public List<String> getFreshMasterRunIds() {
		return this.freshMasterRunIds;
	}

	public void setFreshMasterRunIds(List<String> freshMasterRunIds) {
		this.freshMasterRunIds = freshMasterRunIds;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public List<NodeProperties> getNodes() {
		return this.nodes;
	}

	public void setNodes(List<NodeProperties> nodes) {
		this.nodes = nodes;
	}

	public EtcdProperties getEtcd() {
		return this.etcd;
	}

	public Duration getNodeTimeout() {
		return this.nodeTimeout;
	}

	public void setNodeTimeout(Duration nodeTimeout) {
		this.nodeTimeout = nodeTimeout;
	}

	public double getClockDriftFactor() {
		return this.clockDriftFactor;
	}

	public void setClockDriftFactor(double clockDriftFactor) {
		this.clockDriftFactor = clockDriftFactor;
	}

	public RetryDelay getRetryDelay() {
		return this.retryDelay;
	}

	public void setRetryDelay(RetryDelay retryDelay) {
		this.retryDelay = retryDelay;
	}

	public Duration getRetryBudget() {
		return this.retryBudget;
	}

	public void setRetryBudget(Duration retryBudget) {
		this.retryBudget = retryBudget;
	}

	public Duration getRejoinDelay() {
		return this.rejoinDelay;
	}

	public void setRejoinDelay(Duration rejoinDelay) {
		this.rejoinDelay = rejoinDelay;
	}

	public int getSyncReplicas() {
		return this.syncReplicas;
	}

	public void setSyncReplicas(int syncReplicas) {
		this.syncReplicas = syncReplicas;
	}

	public boolean isAllowEvictingMasters() {
		return this.allowEvictingMasters;
	}

	public void setAllowEvictingMasters(boolean allowEvictingMasters) {
		this.allowEvictingMasters = allowEvictingMasters;
	}

	public int getMaxKeyLength() {
		return this.maxKeyLength;
	}

	public void setMaxKeyLength(int maxKeyLength) {
		this.maxKeyLength = maxKeyLength;
	}

	public Ssl getSsl() {
		return this.ssl;
	}

	public FencingProperties getFencing() {
		return this.fencing;
	}

	public CommitGuardProperties getCommitGuard() {
		return this.commitGuard;
	}

	public int getAspectOrder() {
		return this.aspectOrder;
	}

	public void setAspectOrder(int aspectOrder) {
		this.aspectOrder = aspectOrder;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Actuator getActuator() {
		return this.actuator;
	}

	public ProblemDetails getProblemDetails() {
		return this.problemDetails;
	}

	public Map<String, Instance> getInstances() {
		return this.instances;
	}

	public void setInstances(Map<String, Instance> instances) {
		this.instances = instances;
	}

}
