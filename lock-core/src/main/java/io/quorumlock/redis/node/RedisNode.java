package io.quorumlock.redis.node;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import io.lettuce.core.RedisConnectionException;

/**
 * One Redis master (or, in single mode, a whole Redis Cluster) as the engine sees it,
 * whatever carries its commands ({@link Transport}): a command connection and, when a
 * waiter needs it, a pub/sub connection ({@link PubSub}), made in the background and
 * retried until they succeed ({@link Reconnector}). A node that is down is not an error:
 * its commands fail at once instead of being buffered, so a dead node costs nothing and a
 * slow one at most the node timeout. It sends the releases and undos it failed again once
 * back ({@link Redos}), probes its ACL ({@link ScriptProbe}) and, when it is one server,
 * knows its state ({@link ServerState}).
 * <p>
 * Every disconnect and reconnect of any of its command connections, and every NOSCRIPT
 * answer, starts a new connection {@link #epoch() epoch}. Lettuce sends the commands in
 * flight when a connection dropped again after it reconnects, possibly to a new, empty
 * server; so an answer is a vote only if the epoch it was sent in is still current when
 * it comes back ({@link #sameConnection(long)}). In each epoch every script is loaded on
 * every connection, and the node's state read, before the node votes: scripts run only by
 * {@code EVALSHA}, and a NOSCRIPT is a fault recovered by a new epoch, never a re-send of
 * the text that could land behind later commands.
 */
public final class RedisNode implements Voter, Channels, AutoCloseable {

	/** Every script, shared ones too: loaded on each connection in each epoch. */
	public static final Script[] SCRIPTS = { Script.ACQUIRE, Script.RELEASE, Script.QUEUE, Script.RELEASE_HANDOFF,
			Script.EXTEND, Script.EXTEND_MANY, Script.HOLD, Script.FENCE_INCREMENT, Script.FENCE_RAISE,
			Script.FORCE_RELEASE, Script.HELD, Script.GUARD_READ, Script.GUARD_PROMOTE, Script.GUARD_VET,
			Script.GUARD_SUSPECT, Script.GUARD_EVICTED, SharedScripts.ACQUIRE, SharedScripts.EXTEND,
			SharedScripts.RELEASE, SharedScripts.HOLD, SharedScripts.INTENT };

	private final Transport transport;

	private final Timers timers;

	private final NodeContext context;

	/**
	 * The connection epoch: bumped on every disconnect and every reconnect of a command
	 * connection, on the I/O thread that sees it, before any command is sent again on the
	 * new connection and so before any answer comes back on it; and on a NOSCRIPT.
	 */
	private final AtomicLong epoch = new AtomicLong();

	private final Link.Events events = new Link.Events() {

		@Override
		public void disconnected() {
			RedisNode.this.downSince = RedisNode.this.timers.nanoTime();
			newEpoch();
		}

		@Override
		public void reconnected() {
			// a reconnect: the server may be a new process; Lettuce may send again what
			// was in flight, but no answer from before counts now
			newEpoch();
			RedisNode.this.reconnector.connected();
			RedisNode.this.timers.execute(RedisNode.this::prepare);
		}

		@Override
		public void reconnectFailed(Throwable cause) {
			// the connection dropped and cannot come back: operators and callers see
			// why (a rotated password, a closed port), as for a first connection
			RedisNode.this.reconnector.failed(cause);
		}

	};

	private volatile Link link;

	/** The connection for writes followed by {@code WAIT}; null until opened, if used. */
	private volatile Link replicated;

	/** The epoch in which every script was loaded on every connection; -1 if none. */
	private volatile long readyEpoch = -1;

	/** Why the scripts could not be loaded in the last attempt, else null. */
	private volatile String notLoaded;

	private volatile boolean closed;

	/**
	 * When the command connection was last seen dropping (or, before the first
	 * connection, when the node was made), on the engine's clock: how long it has been
	 * down tells a reconnect in progress from a dead master ({@link #downForNanos}).
	 */
	private volatile long downSince;

	/** What its rounds and connection attempts came to, for status. */
	private final NodeRecord record;

	private final Redos redos;

	private final PubSub pubSub;

	private final Reconnector reconnector;

	private final ScriptProbe probe;

	/** Null for a whole cluster: it answers for no one server. */
	private final ServerState state;

	public RedisNode(Transport transport, NodeContext context) {
		this.transport = transport;
		this.context = context;
		this.timers = context.timers();
		this.downSince = this.timers.nanoTime();
		LongSupplier clock = this.timers::nanoTime;
		// a redo is sent once the epoch open now is ready: before that, eval fails at
		// once, and a redo re-queued at once would spin until the scripts are loaded
		// (prepare sends the pending redos itself when they are)
		this.redos = new Redos((redo) -> watched(eval(redo.script(), redo.keys(), redo.args())), clock,
				this.timers::execute, () -> isConnected() && isReady(), this::isClosed, this::epoch);
		this.pubSub = new PubSub(transport, context.onMessage(), this.timers::execute, this::isClosed);
		this.record = new NodeRecord(clock);
		this.reconnector = new Reconnector((task, delay) -> this.timers.schedule(task, delay.toNanos()), (error) -> {
			this.record.connectFailed(error);
			context.onError().accept(transport.address(), error);
		}, this::isClosed);
		this.probe = new ScriptProbe(context.probeKey(), context.probeChannel());
		this.state = transport.isOneServer()
				? new ServerState(context.guardKeys(), this::epoch, clock, context.guard(), context.clockDriftFactor(),
						context.freshRunIds(), context.anyMarked(), context.ids(), context.evictionAllowed())
				: null;
	}

	/** Host and port, never credentials. */
	@Override
	public String address() {
		return this.transport.address();
	}

	/** The entry as a URI without credentials, for messages. */
	public String uriText() {
		return this.transport.uriText();
	}

	@Override
	public long epoch() {
		return this.epoch.get();
	}

	@Override
	public boolean sameConnection(long epoch) {
		return this.epoch.get() == epoch;
	}

	/** A disconnect, a reconnect or a NOSCRIPT: a new epoch. */
	private void newEpoch() {
		this.epoch.incrementAndGet();
	}

	/** What its rounds and connection attempts came to, for status. */
	public NodeRecord record() {
		return this.record;
	}

	@Override
	public void recordLatency(long nanos) {
		this.record.recordLatency(nanos);
	}

	@Override
	public void answered(Voter.Answer answer, Throwable failure) {
		this.record.answered(answer, failure);
	}

	public boolean isClosed() {
		return this.closed;
	}

	/**
	 * How long the command connection has been down: zero while connected, else since it
	 * dropped or, never connected, since the node was made. A connection down for a
	 * moment is being re-established, not a dead master.
	 */
	public long downForNanos() {
		return isConnected() ? 0 : Math.max(0, this.timers.nanoTime() - this.downSince);
	}

	/** Whether commands can be sent now. */
	public boolean isConnected() {
		Link l = this.link;
		return l != null && l.isOpen();
	}

	/**
	 * Whether renewals due on this node may go as one script call ({@link RenewalBatch}).
	 */
	public boolean batchesRenewals() {
		return this.transport.isOneServer() && !this.context.replicatedWrites();
	}

	/** Redis's or the network's text for the last failed connection attempt, or null. */
	public String lastConnectFailure() {
		return this.reconnector.lastFailure();
	}

	public <T> CompletableFuture<T> notConnected() {
		return this.reconnector.notConnected();
	}

	/**
	 * Connect in the background, retrying with back-off until connected or closed.
	 * @return the first attempt, completing normally whether it connected or not
	 */
	public CompletableFuture<Void> connect() {
		return this.reconnector.connect(() -> this.transport.connect(this.events).thenCompose((opened) -> {
			if (this.closed) {
				opened.close();
				return CompletableFuture.<Void>completedFuture(null);
			}
			this.link = opened;
			newEpoch();
			this.reconnector.connected();
			if (!this.context.replicatedWrites() || this.replicated != null) {
				return prepare();
			}
			return this.transport.connect(this.events).thenCompose((second) -> {
				this.replicated = second;
				newEpoch();
				return prepare();
			});
		}));
	}

	/**
	 * Make the epoch open now ready to vote: load every script on every connection, then
	 * probe the ACL, read the server's state and send the pending redos. Completes
	 * normally whatever happened; a step that failed is tried again by {@link #maintain}.
	 */
	private CompletableFuture<Void> prepare() {
		Link l = this.link;
		if (l == null || this.closed) {
			return CompletableFuture.completedFuture(null);
		}
		long loading = this.epoch.get();
		Link second = this.replicated;
		CompletableFuture<?>[] loads = new CompletableFuture<?>[SCRIPTS.length * ((second != null) ? 2 : 1)];
		for (int i = 0; i < SCRIPTS.length; i++) {
			loads[i] = l.scriptLoad(SCRIPTS[i].text()).toCompletableFuture();
			if (second != null) {
				loads[SCRIPTS.length + i] = second.scriptLoad(SCRIPTS[i].text()).toCompletableFuture();
			}
		}
		return CompletableFuture.allOf(loads).handle((ok, error) -> {
			if (error != null) {
				this.notLoaded = Replies.reason(error);
				return false;
			}
			this.notLoaded = null;
			if (this.epoch.get() != loading) {
				return false; // another epoch began meanwhile: its own preparation loads
			}
			this.readyEpoch = loading;
			return true;
		}).thenCompose((ready) -> {
			if (!ready) {
				return CompletableFuture.completedFuture(null);
			}
			CompletableFuture<Void> probed = this.probe
				.probe((script, key, args) -> eval(script, new String[] { key }, args));
			return CompletableFuture.allOf(probed, readState()).thenRun(this.redos::redoPending);
		});
	}

	/** Whether every script was loaded on every connection in the epoch open now. */
	public boolean isReady() {
		return this.readyEpoch == this.epoch.get();
	}

	/**
	 * Whether the node may vote as far as it knows by itself: ready, and, when it is one
	 * server, its state read in this epoch, its data trusted by the restart guard, and no
	 * eviction policy that could drop lock keys unless {@code evictionAllowed}.
	 */
	public boolean votes(boolean evictionAllowed) {
		if (this.readyEpoch != this.epoch.get()) {
			return false;
		}
		return this.state == null || (this.state.isTrusted() && (evictionAllowed || this.state.evicting() == null));
	}

	/**
	 * How soon the node may vote as far as it knows: {@link Long#MAX_VALUE} while not
	 * connected or evicting (unless allowed), the rest of its restart-guard hold-back,
	 * else zero (voting, or its connection being prepared).
	 */
	public long votesInNanos(boolean evictionAllowed) {
		if (!isConnected()) {
			return Long.MAX_VALUE;
		}
		if (!isReady() || this.state == null || !this.state.isKnown()) {
			return 0;
		}
		if (this.state.evicting() != null && !evictionAllowed) {
			return Long.MAX_VALUE;
		}
		return this.state.heldBackNanos();
	}

	/** Why {@link #votes} is false as far as the node goes, for messages; else null. */
	public String notVoting(boolean evictionAllowed) {
		if (!isConnected()) {
			String last = lastConnectFailure();
			if (last != null) {
				return "not connected, last attempt: " + last;
			}
			// a connection that dropped: Lettuce reconnects it; quote what failed last
			String failure = this.record.lastFailure();
			return "not connected" + ((failure != null) ? ", last failure: " + failure : "");
		}
		if (!isReady()) {
			return "its lock scripts are not loaded on this connection yet"
					+ ((this.notLoaded != null) ? " (" + this.notLoaded + ")" : "");
		}
		if (this.state == null) {
			return null;
		}
		if (!this.state.isKnown()) {
			return "held back until its state (INFO, dataset marker) is read on this connection";
		}
		// evicting first: what the operator has to change, and what the restart guard
		// holds it back for once it stops
		String policy = this.state.evicting();
		if (policy != null && !evictionAllowed) {
			return "evicting: maxmemory-policy " + policy + " with a maxmemory limit can drop held lock keys "
					+ "under memory pressure; set maxmemory-policy noeviction, or accept it with "
					+ "quorumlock.allow-evicting-masters=true";
		}
		return this.state.heldBackReason();
	}

	/** The server's state, or null for a whole cluster. */
	public ServerState state() {
		return this.state;
	}

	/** The server's {@code run_id} on the connection open now; null while unknown. */
	public String runId() {
		return (this.state != null) ? this.state.runId() : null;
	}

	/** How long the server has been up, by its own account; negative while unknown. */
	public long uptimeNanos() {
		return (this.state != null) ? this.state.uptimeNanos() : -1;
	}

	/**
	 * Read the server's state on the connection open now, and again when a hold-back
	 * ends.
	 */
	private CompletableFuture<Void> readState() {
		Link l = this.link;
		if (this.state == null || l == null || this.closed) {
			return CompletableFuture.completedFuture(null);
		}
		return this.state.read(new ServerState.Server() {

			@Override
			public CompletionStage<String> info(String section) {
				return l.info(section);
			}

			@Override
			public CompletionStage<String> configGet(String parameter) {
				return l.configGet(parameter);
			}

			@Override
			public CompletionStage<List<Object>> eval(Script script, String[] keys, String... args) {
				// a NOSCRIPT here is the fault it is in a round: the server forgot the
				// scripts (a restart or a switch behind a connection that stayed open),
				// so a new epoch begins and the state is read again once they are loaded
				CompletableFuture<List<Object>> reply = evalList(script, keys, args).toCompletableFuture();
				reply.whenComplete((value, error) -> {
					if (Replies.isNoScript(error)) {
						scriptsLost();
					}
				});
				return reply;
			}

		}, this::recordLatency).thenRun(() -> {
			long held = this.state.heldBackNanos();
			if (held > 0 && this.state.isKnown()) {
				this.timers.schedule(this::refreshState, held + TimeUnit.MILLISECONDS.toNanos(1));
			}
		});
	}

	/** Read the state again unless a read is in flight. */
	private void refreshState() {
		if (this.state != null && !this.state.isReading() && isConnected() && !this.closed) {
			readState();
		}
	}

	/** A granting script found no dataset marker: the data was lost, read again. */
	public void dataLost(long epoch) {
		if (this.state != null) {
			this.state.dataLost(epoch);
			this.timers.execute(this::refreshState);
		}
	}

	/**
	 * A NOSCRIPT answer: the server forgot the scripts (a restart or a failover behind an
	 * address without a dropped connection, {@code SCRIPT FLUSH}). What is in flight is
	 * no longer a vote, and the scripts are loaded again before the node votes.
	 */
	public void scriptsLost() {
		newEpoch();
		this.timers.execute(this::prepare);
	}

	/** The failure of a grant while this user may not run the lock scripts, else null. */
	public <T> CompletableFuture<T> refused() {
		return this.probe.refused();
	}

	/**
	 * {@code SET key token NX PX lease}: completes with the reply, which
	 * {@link #isSet(String)} reads as set, or not set because the key exists.
	 */
	public CompletionStage<String> setIfAbsent(String key, String token, long leaseMillis) {
		Link l = this.link;
		if (l == null) {
			return notConnected();
		}
		CompletableFuture<String> refused = refused();
		return (refused != null) ? refused : l.setIfAbsent(key, token, leaseMillis);
	}

	/** Whether a {@code SET NX} reply says the key was set. */
	public static boolean isSet(String reply) {
		return "OK".equals(reply);
	}

	/** A script by EVALSHA. */
	public CompletionStage<Long> eval(Script script, String key, String... args) {
		return eval(script, new String[] { key }, args);
	}

	/** A script by EVALSHA, only once the scripts are loaded in the epoch open now. */
	public CompletionStage<Long> eval(Script script, String[] keys, String... args) {
		Link l = this.link;
		if (l == null) {
			return notConnected();
		}
		if (this.readyEpoch != this.epoch.get()) {
			return notLoaded();
		}
		return l.evalsha(script.sha1(), keys, args);
	}

	/** A script answering an array, by EVALSHA, once the scripts are loaded. */
	public CompletionStage<List<Object>> evalList(Script script, String[] keys, String... args) {
		Link l = this.link;
		if (l == null) {
			return notConnected();
		}
		if (this.readyEpoch != this.epoch.get()) {
			return notLoaded();
		}
		return l.evalshaList(script.sha1(), keys, args);
	}

	/** A grant refused while the scripts are not loaded in this epoch: sent nowhere. */
	private <T> CompletableFuture<T> notLoaded() {
		return CompletableFuture.failedFuture(new RedisConnectionException(
				"the lock scripts are not loaded on this connection yet (a new connection, or the server forgot "
						+ "them)" + ((this.notLoaded != null) ? ": " + this.notLoaded : "")));
	}

	/**
	 * A command sent outside a round (a redo): a NOSCRIPT answer is a fault of the node,
	 * as it is in a round.
	 */
	private CompletableFuture<Long> watched(CompletionStage<Long> reply) {
		CompletableFuture<Long> future = reply.toCompletableFuture();
		future.whenComplete((value, error) -> {
			if (Replies.isNoScript(error)) {
				scriptsLost();
			}
		});
		return future;
	}

	/** A compare-and-delete, sent again while {@code aliveNanos} last ({@link Redos}). */
	public CompletableFuture<Long> evalRedone(Script script, long aliveNanos, String key, String... args) {
		return this.redos.send(script, aliveNanos, key, args);
	}

	/**
	 * {@link #evalRedone(Script, long, String, String...)} of a script with several keys.
	 */
	public CompletableFuture<Long> evalRedone(Script script, long aliveNanos, String[] keys, String... args) {
		return this.redos.send(script, aliveNanos, keys, args);
	}

	/** {@code SET NX PX} then {@code WAIT} on the replicated-writes connection. */
	public CompletableFuture<String> setIfAbsent(String key, String token, long leaseMillis, int replicas,
			long timeoutMillis) {
		Link second = this.replicated;
		if (second == null || !isConnected()) {
			return notConnected();
		}
		CompletableFuture<String> refused = refused();
		if (refused != null) {
			return refused;
		}
		return ReplicatedWrites.then(second, second.setIfAbsent(key, token, leaseMillis), RedisNode::isSet, replicas,
				timeoutMillis);
	}

	/**
	 * A script then, if {@code wrote}, {@code WAIT} on the replicated-writes connection.
	 */
	public CompletableFuture<Long> evalReplicated(Script script, String[] keys, Predicate<Long> wrote, int replicas,
			long timeoutMillis, String... args) {
		Link second = this.replicated;
		if (second == null || !isConnected()) {
			return notConnected();
		}
		if (this.readyEpoch != this.epoch.get()) {
			return notLoaded();
		}
		return ReplicatedWrites.then(second, second.evalsha(script.sha1(), keys, args), wrote, replicas, timeoutMillis);
	}

	/** On every reconnect and by the engine's periodic check ({@link Redos}). */
	public void redoPending() {
		this.redos.redoPending();
	}

	/**
	 * Which pub/sub connection is open now (a number that changes on every reconnect), or
	 * -1 while none is.
	 */
	public long pubSubLink() {
		return this.pubSub.link();
	}

	@Override
	public CompletableFuture<Void> subscribe(String channel) {
		return this.pubSub.subscribe(channel);
	}

	@Override
	public CompletableFuture<Void> unsubscribe(String channel) {
		return this.pubSub.unsubscribe(channel);
	}

	/**
	 * The engine's periodic care, every second: load the scripts if this epoch has not,
	 * read the server's state again (its eviction policy may have changed on a live
	 * connection), send the pending redos and the lost UNSUBSCRIBEs.
	 */
	public void maintain() {
		if (isConnected() && !this.closed) {
			if (!isReady()) {
				prepare();
			}
			else if (this.state != null && !this.state.isReading()) {
				// an eviction policy set on a live server shows within a second
				readState();
			}
		}
		this.redos.redoPending();
		this.pubSub.unsubscribeUnwanted();
	}

	/**
	 * Keys under the prefix without a TTL (a lock key should never lack one), by a
	 * bounded scan; the keys the engine keeps without a TTL on purpose (the dataset
	 * marker and its pending record) are not among them.
	 */
	public CompletableFuture<List<String>> keysWithoutTtl(String pattern, int limit, int maxScans) {
		Link l = this.link;
		if (l == null) {
			return notConnected();
		}
		List<String> own = List.of(this.context.guardKeys());
		return l.keysWithoutTtl(pattern, limit + own.size(), maxScans)
			.toCompletableFuture()
			.thenApply((keys) -> keys.stream().filter((key) -> !own.contains(key)).limit(limit).toList());
	}

	@Override
	public void close() {
		this.closed = true;
		this.pubSub.close();
		Link l = this.link;
		if (l != null) {
			l.close();
		}
		Link second = this.replicated;
		if (second != null) {
			second.close();
		}
		this.transport.close();
	}

	@Override
	public String toString() {
		return address();
	}

}
