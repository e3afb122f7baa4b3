package io.quorumlock.redis;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import io.quorumlock.redis.node.NodeDataLostException;
import io.quorumlock.redis.node.RedisNode;
import io.quorumlock.redis.node.RenewalBatch;
import io.quorumlock.redis.node.Replies;
import io.quorumlock.redis.node.Script;
import io.quorumlock.redis.node.SharedScripts;
import io.quorumlock.redis.node.Timers;

/**
 * {@link Voters} on Lettuce nodes: each round is a {@link Round} over the
 * {@link RedisNode}s, the voting ones held back as {@link HeldBack} says (checked when a
 * command is sent, and again by the round when each node answers).
 */
final class RedisVoters implements Voters {

	/** A script's answer that it took effect. */
	static final Predicate<Long> ONE = (answer) -> answer == 1L;

	private static final Predicate<Long> NOT_NEGATIVE = (answer) -> answer >= 0;

	/** A guarded grant's answer ({@link Script#ACQUIRE}): -1 means the data was lost. */
	static final Predicate<Long> GRANTED = (answer) -> {
		if (answer < 0) {
			throw NodeDataLostException.INSTANCE;
		}
		return answer == 1L;
	};

	/**
	 * How late Redis may answer a {@code WAIT} past its own timeout: a server checks
	 * blocked clients' timeouts on its timer, every {@code 1000 / hz} ms (100 ms at the
	 * default {@code hz 10}), so a 100 ms {@code WAIT} can answer after nearly 200 ms.
	 */
	private static final long WAIT_TIMER_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private final List<RedisNode> nodes;

	private final int quorum;

	private final HeldBack heldBack;

	private final Timers timers;

	private final BiConsumer<RedisNode, Throwable> onNodeError;

	private final int syncReplicas;

	private final long nodeTimeoutNanos;

	private final Predicate<RedisNode> votesNow;

	/**
	 * A grant's keys after the lock key: the dataset marker that the granting scripts
	 * check under the restart guard; empty without a guard.
	 */
	private final String[] guardKeys;

	private final SharedVoters shared = new SharedVoters(this);

	/** See {@link #handsOver()}. */
	private final boolean handsOver;

	/**
	 * Each node's renewal batch ({@link RenewalBatch}); empty where renewals go one key
	 * per call: with sync-replicas, or on a Redis Cluster.
	 */
	private final Map<RedisNode, RenewalBatch> renewals;

	/**
	 * @param markerKey the dataset marker the granting scripts check, or null without a
	 * restart guard
	 */
	RedisVoters(List<RedisNode> nodes, HeldBack heldBack, Timers timers, Listeners listener, int syncReplicas,
			long nodeTimeoutNanos, String markerKey) {
		this.nodes = nodes;
		this.quorum = nodes.size() / 2 + 1;
		this.heldBack = heldBack;
		this.timers = timers;
		this.guardKeys = (markerKey != null) ? new String[] { markerKey } : new String[0];
		this.onNodeError = (node, error) -> {
			if (error instanceof NodeDataLostException) {
				node.dataLost(node.epoch()); // checked on the connection it was sent on
			}
			else if (Replies.isNoScript(error)) {
				node.scriptsLost();
			}
			listener.onNodeError(node.address(), error);
		};
		this.syncReplicas = syncReplicas;
		this.nodeTimeoutNanos = nodeTimeoutNanos;
		this.votesNow = heldBack::votes;
		Map<RedisNode, RenewalBatch> renewals = new IdentityHashMap<>();
		for (RedisNode node : nodes) {
			if (syncReplicas == 0 && node.batchesRenewals()) {
				renewals.put(node, new RenewalBatch(this::onNextTick, (keys, args) -> extendMany(node, keys, args),
						RenewalBatch.MAX_KEYS));
			}
		}
		this.renewals = renewals;
		this.handsOver = handsOver(nodes, syncReplicas);
	}

	/** See {@link #handsOver()}: one standalone master, without sync-replicas. */
	static boolean handsOver(List<RedisNode> nodes, int syncReplicas) {
		return nodes.size() == 1 && syncReplicas == 0 && nodes.get(0).batchesRenewals();
	}

	@Override
	public int size() {
		return this.nodes.size();
	}

	@Override
	public int quorum() {
		return this.quorum;
	}

	@Override
	public int votingNow() {
		int voting = 0;
		for (RedisNode node : this.nodes) {
			voting += this.heldBack.votes(node) ? 1 : 0;
		}
		return voting;
	}

	@Override
	public long quorumPossibleInNanos(long reconnectingNanos) {
		long[] in = new long[this.nodes.size()];
		for (int i = 0; i < in.length; i++) {
			in[i] = this.heldBack.votesInNanos(this.nodes.get(i), reconnectingNanos);
		}
		Arrays.sort(in);
		return in[this.quorum - 1];
	}

	@Override
	public long writeRoundNanos() {
		return (this.syncReplicas == 0) ? this.nodeTimeoutNanos : 2 * this.nodeTimeoutNanos + WAIT_TIMER_SLACK_NANOS;
	}

	/**
	 * With sync-replicas the deadline covers the write, the {@code WAIT} and the server's
	 * timer slack, so a refused {@code WAIT} is heard as a refusal and not as silence;
	 * the time spent still comes off the validity.
	 */
	@Override
	public CompletableFuture<Round.Tally> acquire(String key, String token, long leaseMillis) {
		return acquire(key, token, leaseMillis, this.nodeTimeoutNanos);
	}

	@Override
	public CompletableFuture<Round.Tally> acquire(String key, String token, long leaseMillis, long timeoutNanos) {
		if (this.nodes.size() > 1) {
			// a script, to check the dataset marker and to name each refusal's holder
			return write(Script.ACQUIRE, grantKeys(key), ONE, new GrantVotes(this.nodes.size()), timeoutNanos, token,
					Long.toString(leaseMillis));
		}
		if (this.syncReplicas == 0) {
			return voting((node) -> node.setIfAbsent(key, token, leaseMillis), RedisNode::isSet, timeoutNanos);
		}
		return voting((node) -> node.setIfAbsent(key, token, leaseMillis, this.syncReplicas, waitMillis()),
				RedisNode::isSet, writeRoundNanos(timeoutNanos));
	}

	/** A granting script's keys: the lock key, then the dataset marker if guarded. */
	String[] grantKeys(String key) {
		if (this.guardKeys.length == 0) {
			return new String[] { key };
		}
		return new String[] { key, this.guardKeys[0] };
	}

	@Override
	public CompletableFuture<Round.Tally> extend(String key, String token, String leaseMillis) {
		return write(Script.EXTEND, new String[] { key }, ONE, ONE, token, leaseMillis);
	}

	@Override
	public CompletableFuture<Round.Tally> extend(String key, String token, String leaseMillis, long timeoutNanos) {
		return write(Script.EXTEND, new String[] { key }, ONE, ONE, timeoutNanos, token, leaseMillis);
	}

	/**
	 * The watchdog's extension: the same voting round as {@link #extend}, each node's
	 * part sent with the other renewals due on that node ({@link RenewalBatch}) where it
	 * has a batch.
	 */
	@Override
	public CompletableFuture<Round.Tally> renew(String key, String token, String leaseMillis) {
		if (this.renewals.isEmpty()) {
			return extend(key, token, leaseMillis);
		}
		return voting((node) -> {
			RenewalBatch batch = this.renewals.get(node);
			return (batch != null) ? batch.extend(key, token, leaseMillis)
					: node.eval(Script.EXTEND, key, token, leaseMillis);
		}, ONE, this.nodeTimeoutNanos);
	}

	/**
	 * Where every node batches renewals: with neither sync-replicas nor a Redis Cluster,
	 * and no node listed twice.
	 */
	@Override
	public boolean renewsMany() {
		return this.renewals.size() == this.nodes.size();
	}

	/** One {@link RenewalRound}: a call per node for all the keys. */
	@Override
	public CompletableFuture<Round.Tally[]> renewMany(String[] keys, String[] args) {
		return RenewalRound.run(this.nodes, this.quorum, this.heldBack, keys, args, this.nodeTimeoutNanos, this.timers,
				this.onNodeError);
	}

	/**
	 * Where a renewal batch is flushed: on the timing wheel's next tick (at most
	 * {@link Deadlines#TICK_MILLIS} ms away), not at the tail of the scheduler's queue,
	 * which may be long (a burst of grants or retries): the wait comes off the leases'
	 * validity. The wheel's thread only fires timeouts, so it is seldom far behind.
	 */
	private void onNextTick(Runnable flush) {
		try {
			this.timers.after(0, (timeout) -> flush.run());
		}
		catch (IllegalStateException ex) {
			throw new RejectedExecutionException("the engine is closed", ex); // wheel
																				// stopped
		}
	}

	/** One chunk of a node's renewal batch. */
	private static CompletionStage<List<Object>> extendMany(RedisNode node, String[] keys, String[] args) {
		return node.evalList(Script.EXTEND_MANY, keys, args);
	}

	@Override
	public boolean handsOver() {
		return this.handsOver;
	}

	@Override
	public CompletableFuture<Round.Tally> queue(String key, String token, long leaseMillis, long entryMillis,
			String channel, long timeoutNanos) {
		String[] keys = { key, LockKeys.queueKey(key) };
		String lease = Long.toString(leaseMillis);
		String entry = Long.toString(entryMillis);
		return voting((node) -> node.eval(Script.QUEUE, keys, token, lease, entry, channel), ONE, timeoutNanos);
	}

	@Override
	public long handOverLink() {
		RedisNode node = this.nodes.get(0);
		long link = node.pubSubLink();
		// both counters stay far below 2^31 (one step per reconnect)
		return (link < 0) ? -1 : (node.epoch() << 31) ^ link;
	}

	/**
	 * Compare-and-delete and publish; where releases hand over ({@link #handsOver()}),
	 * {@link Script#RELEASE_HANDOFF}, to the next waiter queued if any. A waiter's
	 * 16-digit name in place of a token releases whatever token of that waiter holds the
	 * key, and takes it out of the queue.
	 */
	@Override
	public CompletableFuture<Round.Tally> release(String key, String token, long leaseNanos) {
		String channel = LockKeys.channel(key);
		if (this.handsOver) {
			String[] keys = { key, LockKeys.queueKey(key) };
			return all(this.quorum, (node) -> node.evalRedone(Script.RELEASE_HANDOFF, leaseNanos, keys, token, channel),
					ONE);
		}
		return all(this.quorum, (node) -> node.evalRedone(Script.RELEASE, leaseNanos, key, token, channel), ONE);
	}

	@Override
	public CompletableFuture<Round.Tally> keep(String key, String token, long keepMillis, long leaseNanos) {
		String millis = Long.toString(keepMillis);
		return all(this.quorum, (node) -> node.evalRedone(Script.HOLD, leaseNanos, key, token, millis), ONE);
	}

	@Override
	public CompletableFuture<Round.Tally> fenceIncrement(String key, String token, String ttlMillis, AtomicLong max) {
		return write(Script.FENCE_INCREMENT, new String[] { key, LockKeys.fenceKey(key) }, NOT_NEGATIVE, (value) -> {
			if (value < 0) {
				return false;
			}
			max.accumulateAndGet(value, Math::max);
			return true;
		}, token, ttlMillis);
	}

	@Override
	public CompletableFuture<Round.Tally> fenceRaise(String key, String token, String value, String ttlMillis) {
		return write(Script.FENCE_RAISE, new String[] { key, LockKeys.fenceKey(key) }, ONE, ONE, token, value,
				ttlMillis);
	}

	@Override
	public Voters shared() {
		return this.shared;
	}

	/** On the voting nodes where the key is held shared; nobody waits for the answers. */
	@Override
	public void markIntent(String key, long ttlMillis) {
		String millis = Long.toString(ttlMillis);
		voting((node) -> node.eval(SharedScripts.INTENT, key, millis), ONE, this.nodeTimeoutNanos);
	}

	@Override
	public CompletableFuture<Round.Tally> held(String key, long timeoutNanos) {
		return voting((node) -> node.eval(Script.HELD, grantKeys(key)), GRANTED, timeoutNanos);
	}

	@Override
	public CompletableFuture<Round.Tally> forceRelease(String key) {
		String channel = LockKeys.channel(key);
		// every node's answer counts here, so the round waits for all of them
		return all(this.nodes.size(), (node) -> node.eval(Script.FORCE_RELEASE, key, channel), ONE);
	}

	/**
	 * A round of a script whose writes a later grant relies on, on the voting nodes. With
	 * sync-replicas each node runs it on its replicated-writes connection, followed there
	 * by {@code WAIT}, and votes only once the replicas acknowledged it, so that a
	 * failover to a replica keeps it.
	 * @param wrote whether an answer means the script wrote something to wait for
	 * @param took whether an answer is a yes vote
	 */
	CompletableFuture<Round.Tally> write(Script script, String[] keys, Predicate<Long> wrote, Predicate<Long> took,
			String... args) {
		return write(script, keys, wrote, took, this.nodeTimeoutNanos, args);
	}

	/**
	 * {@link #write(Script, String[], Predicate, Predicate, String...)} with
	 * {@code timeoutNanos} for each node's answer instead of the node timeout.
	 */
	CompletableFuture<Round.Tally> write(Script script, String[] keys, Predicate<Long> wrote, Predicate<Long> took,
			long timeoutNanos, String... args) {
		if (this.syncReplicas == 0) {
			return voting((node) -> node.eval(script, keys, args), took, timeoutNanos);
		}
		return voting((node) -> node.evalReplicated(script, keys, wrote, this.syncReplicas, waitMillis(), args), took,
				writeRoundNanos(timeoutNanos));
	}

	/** {@link #writeRoundNanos()} with {@code timeoutNanos} for the write's answer. */
	private long writeRoundNanos(long timeoutNanos) {
		return writeRoundNanos() - this.nodeTimeoutNanos + timeoutNanos;
	}

	/** The {@code WAIT} timeout: the node timeout. */
	private long waitMillis() {
		return Math.max(1, TimeUnit.NANOSECONDS.toMillis(this.nodeTimeoutNanos));
	}

	/** A round on every node, voting or not, with the node timeout as the deadline. */
	<T> CompletableFuture<Round.Tally> all(int votesNeeded, Function<RedisNode, ? extends CompletionStage<T>> command,
			Predicate<? super T> took) {
		return Round.run(this.nodes, votesNeeded, command, took, this.nodeTimeoutNanos, null, this.timers,
				this.onNodeError);
	}

	/**
	 * A round on the nodes that may vote; the others are neither sent the command nor
	 * counted.
	 */
	private <T> CompletableFuture<Round.Tally> voting(Function<RedisNode, ? extends CompletionStage<T>> command,
			Predicate<? super T> took, long timeoutNanos) {
		return Round.run(this.nodes, this.quorum,
				(node) -> this.heldBack.votes(node) ? command.apply(node)
						: CompletableFuture.<T>failedFuture(this.heldBack.reason(node)),
				took, timeoutNanos, this.votesNow, this.timers, this.onNodeError);
	}

}
