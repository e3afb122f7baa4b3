package io.quorumlock.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;

/**
 * The Lettuce side of an engine: its {@link RedisNode}s, made from the settings, with
 * their shared resources, their release signals and the check for one master listed
 * twice; connected at start (waiting a moment so that the first request finds them),
 * looked after every second, and closed with the engine.
 */
final class Connections implements AutoCloseable {

	private static final System.Logger log = System.getLogger(QuorumLockEngine.class.getName());

	private final List<RedisNode> nodes;

	private final ReleaseSignals signals;

	/** Tells one master listed twice from two masters, by run_id; null in single mode. */
	private final SameServer sameServer;

	private final ClientResources resources;

	private final boolean ownsResources;

	private final Duration commandTimeout;

	Connections(EngineSettings settings, ScheduledExecutorService scheduler, Listeners listener) {
		this.ownsResources = settings.clientResources() == null;
		this.resources = this.ownsResources ? DefaultClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(2), 2, TimeUnit.MILLISECONDS))
			.build() : settings.clientResources();
		this.commandTimeout = settings.commandTimeout();
		List<RedisNode> list = new ArrayList<>(settings.nodes().size() + 1);
		ReleaseSignals[] signalsRef = new ReleaseSignals[1];
		NodeContext context = new NodeContext(this.resources, settings.sslOptions(), this.commandTimeout,
				this.commandTimeout, scheduler, settings.nanoClock(),
				LockKeys.lockKey(settings.keyPrefix(), "", "quorumlock:probe"),
				(channel) -> signalsRef[0].onMessage(channel), listener::onNodeError);
		for (RedisURI uri : settings.nodes()) {
			list.add(new StandaloneNode(uri, context, settings.syncReplicas() > 0));
		}
		if (settings.isCluster()) {
			// single mode on a Redis Cluster: the whole cluster is the one node
			list.add(new ClusterNode(settings.clusterSeeds(), context));
		}
		this.nodes = List.copyOf(list);
		this.sameServer = (this.nodes.size() > 1) ? new SameServer(this.nodes) : null;
		this.signals = new ReleaseSignals(this.nodes);
		signalsRef[0] = this.signals;
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
	String start(ScheduledExecutorService scheduler) {
		CompletableFuture<?>[] first = this.nodes.stream().map(RedisNode::connect).toArray(CompletableFuture[]::new);
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
		scheduler.scheduleWithFixedDelay(() -> {
			this.nodes.forEach(RedisNode::maintain);
			if (this.sameServer != null) {
				this.sameServer.check();
			}
		}, 1, 1, TimeUnit.SECONDS);
		return null;
	}

	/** Close every connection, and the Lettuce resources if the engine made them. */
	@Override
	public void close() {
		this.nodes.forEach(RedisNode::close);
		if (!this.ownsResources) {
			return;
		}
		try {
			this.resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			log.log(Level.WARNING, "Lettuce resources did not shut down cleanly", ex);
		}
	}

}
