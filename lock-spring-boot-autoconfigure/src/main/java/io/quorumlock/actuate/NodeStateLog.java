package io.quorumlock.actuate;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.util.Assert;

import io.quorumlock.RegistryStatus;

/**
 * Logs each change of a node's state once, not once per call: a master that is not
 * connected (WARN), connected again (INFO), held back by the restart guard (WARN, saying
 * for how long and why) and voting again (INFO). Reads the registry's status view every
 * second on its own daemon thread; never touches a connection.
 */
public class NodeStateLog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(NodeStateLog.class);

	private final RegistryStatus status;

	private final Duration restartGuard;

	/** Last state logged per address; touched only by the polling thread. */
	private final Map<String, State> last = new HashMap<>();

	private ScheduledExecutorService scheduler;

	/**
	 * Create a log of the nodes of a registry.
	 * @param status the registry's status view
	 * @param restartGuard the restart guard in force (zero when off)
	 */
	public NodeStateLog(RegistryStatus status, Duration restartGuard) {
		Assert.notNull(status, "'status' must not be null");
		Assert.notNull(restartGuard, "'restartGuard' must not be null");
		this.status = status;
		this.restartGuard = restartGuard;
	}

	/**
	 * Start checking every second.
	 */
	public synchronized void start() {
		if (this.scheduler == null) {
			this.scheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> {
				Thread thread = new Thread(runnable, "quorumlock-node-log");
				thread.setDaemon(true);
				return thread;
			});
			this.scheduler.scheduleWithFixedDelay(this::checkSafely, 0, 1, TimeUnit.SECONDS);
		}
	}

	/**
	 * Stop checking.
	 */
	@Override
	public synchronized void close() {
		if (this.scheduler != null) {
			this.scheduler.shutdownNow();
			this.scheduler = null;
		}
	}

	private void checkSafely() {
		try {
			check();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not read the node states", ex);
		}
	}

	/** Compare every node with its last logged state and log what changed. */
	void check() {
		List<RegistryStatus.Node> nodes = this.status.nodes();
		long votingNow = nodes.stream().filter(RegistryStatus.Node::countsTowardQuorum).count();
		String summary = votingNow + " of " + nodes.size() + " masters vote now, a lock needs " + this.status.quorum();
		for (RegistryStatus.Node node : nodes) {
			State state = State.of(node);
			if (state == State.STARTING) {
				continue; // not logged: connected, uptime not read yet
			}
			State before = this.last.put(node.address(), state);
			if (state == before) {
				continue;
			}
			if (before == State.DOWN && state != State.VOTING) {
				logger.info("quorumlock: master " + node.address() + " is connected again");
			}
			switch (state) {
				case DOWN -> logger.warn("quorumlock: master " + node.address() + " is not connected; " + summary
						+ ((votingNow < this.status.quorum()) ? ": locks fail until enough masters are back" : ""));
				case HELD_BACK -> logger
					.warn("quorumlock: master " + node.address() + " is held back by the restart guard for another "
							+ seconds(node.heldBackFor()) + " (restart guard " + seconds(this.restartGuard)
							+ ", the longest declared lease or quorumlock.rejoin-delay): it lost its data, or a new "
							+ "server process came up with it, and may lack the keys of leases still held; " + summary
							+ ((votingNow < this.status.quorum()) ? ": locks fail until then" : "")
							+ ". For brand-new masters on which no lock was ever taken, see "
							+ "quorumlock.fresh-master-run-ids");
				case SAME_SERVER -> logger.warn("quorumlock: master " + node.address() + " is the same Redis server as "
						+ node.sameServerAs() + " (same run_id): it is counted once; " + summary);
				case VOTING -> {
					if (before == State.DOWN) {
						logger
							.info("quorumlock: master " + node.address() + " is connected again and votes; " + summary);
					}
					else if (before == State.HELD_BACK) {
						logger.info("quorumlock: master " + node.address() + " votes again: the restart guard ("
								+ seconds(this.restartGuard) + ") has passed or it was declared brand new; " + summary);
					}
				}
				default -> {
				}
			}
		}
	}

	private static String seconds(Duration duration) {
		long millis = Math.max(0, duration.toMillis());
		return ((millis + 999) / 1000) + " s";
	}

	/** What is logged about a node. */
	enum State {

		/** Not connected. */
		DOWN,

		/** Connected, uptime not read yet: not logged. */
		STARTING,

		/** Held back by the restart guard. */
		HELD_BACK,

		/** The same server as an earlier node. */
		SAME_SERVER,

		/** Counts toward a quorum. */
		VOTING;

		static State of(RegistryStatus.Node node) {
			if (!node.up()) {
				return DOWN;
			}
			if (node.sameServerAs() != null) {
				return SAME_SERVER;
			}
			if (node.voting()) {
				return VOTING;
			}
			return (node.uptime().isNegative()) ? STARTING : HELD_BACK;
		}

	}

}
