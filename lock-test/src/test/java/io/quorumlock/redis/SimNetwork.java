package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The simulated network between engines and servers: which server each address reaches
 * now (a failover behind an address re-points it), partitions between an engine and an
 * address (packets wait, as TCP retransmits them, until the partition heals or the
 * connection is reset), per-message latency with rare spikes, and every connection, so
 * that faults can drop them.
 */
final class SimNetwork {

	final SimLoop loop;

	private final Map<String, SimServer> routes = new LinkedHashMap<>();

	private final Set<String> partitions = new HashSet<>();

	final List<SimTransport.Connection> connections = new ArrayList<>();

	/** Told of every script sent that extends lock keys; null when nobody checks. */
	SimHistory history;

	/** The connection whose I/O callback runs now (a Netty I/O thread), else null. */
	SimTransport.Connection ioContext;

	private final long latencyMin;

	private final long latencyMax;

	/** Chance in a thousand that a message is late by up to {@link #spikeMax}. */
	private final int spikePerMille;

	private final long spikeMax;

	SimNetwork(SimLoop loop, long latencyMin, long latencyMax, int spikePerMille, long spikeMax) {
		this.loop = loop;
		this.latencyMin = latencyMin;
		this.latencyMax = latencyMax;
		this.spikePerMille = spikePerMille;
		this.spikeMax = spikeMax;
	}

	void route(String address, SimServer server) {
		this.routes.put(address, server);
	}

	SimServer server(String address) {
		return this.routes.get(address);
	}

	Map<String, SimServer> routes() {
		return this.routes;
	}

	/** One message's delay. */
	long latency() {
		long delay = this.latencyMin + (long) (this.loop.random.nextDouble() * (this.latencyMax - this.latencyMin));
		if (this.spikePerMille > 0 && this.loop.random.nextInt(1000) < this.spikePerMille) {
			delay += (long) (this.loop.random.nextDouble() * this.spikeMax);
		}
		return delay;
	}

	boolean partitioned(String engine, String address) {
		return !this.partitions.isEmpty() && this.partitions.contains(engine + "|" + address);
	}

	void partition(String engine, String address) {
		this.partitions.add(engine + "|" + address);
	}

	/** Heal a partition: what waited is delivered, or the connections are reset. */
	void heal(String engine, String address, boolean reset) {
		this.partitions.remove(engine + "|" + address);
		for (SimTransport.Connection connection : List.copyOf(this.connections)) {
			if (connection.engine().equals(engine) && connection.address().equals(address)) {
				if (reset) {
					connection.reset("reset after a partition");
				}
				else {
					connection.healed();
				}
			}
		}
	}

	/** The server behind {@code address} changes (a failover behind an address). */
	void repoint(String address, SimServer server) {
		repoint(address, server, false);
	}

	/**
	 * The address reaches {@code server} from now on.
	 * @param keepConnections whether the command connections open now stay open, their
	 * next commands going to {@code server} (a proxy or managed endpoint that keeps
	 * client connections across a failover), rather than being reset; pub/sub connections
	 * are reset either way
	 */
	void repoint(String address, SimServer server, boolean keepConnections) {
		this.routes.put(address, server);
		if (!keepConnections) {
			dropAll(address, "re-pointed");
			return;
		}
		for (SimTransport.Connection connection : List.copyOf(this.connections)) {
			if (connection.address().equals(address)) {
				connection.switchKept(server);
			}
		}
	}

	/** Reset every connection to {@code address}. */
	void dropAll(String address, String why) {
		for (SimTransport.Connection connection : List.copyOf(this.connections)) {
			if (connection.address().equals(address)) {
				connection.reset(why);
			}
		}
	}

	/** Reset every connection bound to a server process that just died. */
	void crashed(SimServer server) {
		for (SimTransport.Connection connection : List.copyOf(this.connections)) {
			if (connection.isBoundTo(server)) {
				connection.reset("server crashed");
			}
		}
	}

	/** The open connections to {@code address}, for a fault to pick one. */
	List<SimTransport.Connection> open(String address) {
		List<SimTransport.Connection> open = new ArrayList<>();
		for (SimTransport.Connection connection : this.connections) {
			if (connection.address().equals(address) && connection.isOpen()) {
				open.add(connection);
			}
		}
		return open;
	}

}
