package io.quorumlock.redis.node;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;

/**
 * The Lettuce transports of an engine's nodes ({@link LettuceTransport} per listed
 * master, or one {@link ClusterTransport} for a Redis Cluster in single mode), and the
 * resources they share: the application's, or made here (tuned to reconnect quickly to a
 * restarted master) and shut down with them.
 */
public final class LettuceTransports implements AutoCloseable {

	private static final System.Logger log = System.getLogger(LettuceTransports.class.getName());

	/** The resources made here, else null. */
	private final ClientResources owned;

	private final List<Transport> transports;

	/**
	 * @param nodes the listed masters
	 * @param clusterSeeds the seeds of a Redis Cluster, else empty
	 * @param resources the application's Lettuce resources, or null to make them
	 * @param sslOptions TLS settings, or null for Lettuce's defaults
	 * @param commandTimeout Lettuce's own bound on a command and on a connect
	 * @param timers the engine's timers
	 */
	public LettuceTransports(List<RedisURI> nodes, List<RedisURI> clusterSeeds, ClientResources resources,
			SslOptions sslOptions, Duration commandTimeout, Timers timers) {
		this.owned = (resources == null) ? DefaultClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(2), 2, TimeUnit.MILLISECONDS))
			.timer(new LettuceTimer(timers))
			.build() : null;
		LettuceContext context = new LettuceContext((this.owned != null) ? this.owned : resources, sslOptions,
				commandTimeout, commandTimeout, timers);
		List<Transport> list = new ArrayList<>(nodes.size() + 1);
		nodes.forEach((uri) -> list.add(new LettuceTransport(uri, context)));
		if (!clusterSeeds.isEmpty()) {
			// single mode on a Redis Cluster: the whole cluster is the one node
			list.add(new ClusterTransport(clusterSeeds, context));
		}
		this.transports = List.copyOf(list);
	}

	/** One transport per node, in configuration order. */
	public List<Transport> transports() {
		return this.transports;
	}

	/** Shut down the resources made here (the transports close with their nodes). */
	@Override
	public void close() {
		if (this.owned == null) {
			return;
		}
		try {
			this.owned.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			log.log(Level.WARNING, "Lettuce resources did not shut down cleanly", ex);
		}
	}

}
