package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.quorumlock.redis.node.GuardRecord;
import io.quorumlock.redis.node.LettuceTransports;
import io.quorumlock.redis.node.NodeContext;
import io.quorumlock.redis.node.RedisNode;
import io.quorumlock.redis.node.Timers;
import io.quorumlock.redis.node.Transport;

/**
 * An engine's nodes: made from the settings over their transports (Lettuce's, or a
 * test's), with their release signals and the check for one master listed twice;
 * connected at start (waiting a moment so that the first request finds them), looked
 * after every second, and closed with the engine.
 */
final class Connections implements AutoCloseable {

	private final List<RedisNode> nodes;

	private final ReleaseSignals signals;

	/** Tells one master listed twice from two masters, by run_id; null in single mode. */
	private final SameServer sameServer;

	/** The Lettuce transports and their resources; null when a test supplies them. */
	private final LettuceTransports lettuce;

	private final Duration commandTimeout;

	private final Timers timers;

	private final String markerKey;

	/**
	 * Whether the first connections are awaited at start (not on a test's event loop).
	 */
	private final boolean awaitFirst;

	/**
	 * @param runtime what a test supplies (each listed node's transport), or null for
	 * Lettuce's
	 */
	Connections(EngineSettings settings, Timers timers, Listeners listener, Random random, EngineRuntime runtime) {
		this.timers = timers;
		this.commandTimeout = settings.commandTimeout();
		this.awaitFirst = runtime == null;
		List<Transport> list = new ArrayList<>(settings.nodes().size() + 1);
		if (runtime != null) {
			this.lettuce = null;
			settings.nodes().forEach((uri) -> list.add(runtime.transports().apply(uri)));
		}
		else {
			this.lettuce = new LettuceTransports(settings.nodes(), settings.clusterSeeds(), settings.clientResources(),
					settings.sslOptions(), this.commandTimeout, timers);
			list.addAll(this.lettuce.transports());
		}
		ReleaseSignals[] signalsRef = new ReleaseSignals[1];
		RestartGuard guard = settings.guard();
		String[] guardKeys = { LockKeys.lockKey(settings.keyPrefix(), "", "quorumlock:marker"),
				LockKeys.lockKey(settings.keyPrefix(), "", "quorumlock:pending"),
				LockKeys.lockKey(settings.keyPrefix(), "", "quorumlock:guards") };
		this.markerKey = (guard.nanos() > 0) ? guardKeys[0] : null;
		String probeKey = LockKeys.lockKey(settings.keyPrefix(), "", "quorumlock:probe");
		NodeContext context = new NodeContext(timers, probeKey, LockKeys.channel(probeKey), guardKeys,
				(guard.nanos() > 0)
						? new GuardRecord(guard.nanos(), ids(random).get(),
								(runtime != null) ? "engine" : GuardRecord.thisProcess(), settings.clockDriftFactor())
						: null,
				settings.clockDriftFactor(), settings.freshRunIds(), new AtomicBoolean(), ids(random),
				settings.syncReplicas() > 0, settings.evictionAllowed(),
				(channel, message) -> signalsRef[0].onMessage(channel, message), listener::onNodeError);
		this.nodes = list.stream().map((transport) -> new RedisNode(transport, context)).toList();
		this.sameServer = (this.nodes.size() > 1) ? new SameServer(this.nodes) : null;
		// where releases hand over, each engine hears its hand-overs on channels of its
		// own
		this.signals = new ReleaseSignals(this.nodes, RedisVoters.handsOver(this.nodes, settings.syncReplicas())
				? ":" + ids(random).get().substring(0, 16) : null);
		signalsRef[0] = this.signals;
	}

	/** New random ids of 16 bytes, in hex: nonces and dataset ids. */
	private static Supplier<String> ids(Random random) {
		return () -> {
			byte[] bytes = new byte[16];
			random.nextBytes(bytes); // Random and SecureRandom are thread-safe
			return HexFormat.of().formatHex(bytes);
		};
	}

	/** The dataset marker the granting scripts check, or null without a restart guard. */
	String markerKey() {
		return this.markerKey;
	}

	List<RedisNode> nodes() {
		return this.nodes;
	}

	ReleaseSignals signals() {
		return this.signals;
	}

	SameServer sameServer() {
		return this.sameServer;
	}

	/**
	 * Connect every node, waiting a moment for the first connections; a node that is down
	 * now keeps retrying in the background and is not an error. Then look after the nodes
	 * every second.
	 * @return why the engine must not start (one master listed twice), else null
	 */
	String start() {
		CompletableFuture<?>[] first = this.nodes.stream().map(RedisNode::connect).toArray(CompletableFuture[]::new);
		if (this.awaitFirst) {
			try {
				CompletableFuture.allOf(first).get(this.commandTimeout.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (ExecutionException | TimeoutException ex) {
				// reported per node through onNodeError
			}
			String sameServers = (this.sameServer != null) ? this.sameServer.startUpRefusal() : null;
			if (sameServers != null) {
				return sameServers;
			}
		}
		maintainEverySecond();
		return null;
	}

	private void maintainEverySecond() {
		this.timers.schedule(() -> {
			try {
				this.nodes.forEach(RedisNode::maintain);
				if (this.sameServer != null) {
					this.sameServer.check();
				}
			}
			finally {
				maintainEverySecond();
			}
		}, TimeUnit.SECONDS.toNanos(1));
	}

	/** Close every connection, and the Lettuce resources if the engine made them. */
	@Override
	public void close() {
		this.nodes.forEach(RedisNode::close);
		if (this.lettuce != null) {
			this.lettuce.close();
		}
	}

}
