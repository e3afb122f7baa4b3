package io.quorumlock.actuate;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.util.Assert;

import io.quorumlock.RegistryStatus;

/**
 * Logs each change of a node's state once, not once per call, with the server's or the
 * transport's own reason ({@link RegistryStatus.Node#lastError()}: {@code WRONGPASS}, a
 * TLS handshake failure, a refused connection, an evicting policy, why the restart guard
 * holds it back): a master that is not connected (WARN, and again when the reason
 * changes), connected again (INFO), held back or evicting (WARN) and voting again (INFO).
 * A node that is connected but not ready yet (its scripts or state not read) is logged
 * only if that lasts a few seconds. Reads the registry's status view every second on its
 * own daemon thread; never touches a connection. Never shows credentials: the status
 * never carries them.
 */
public class NodeStateLog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(NodeStateLog.class);

	/**
	 * Checks a node may stay connected but not ready before it is logged as held back.
	 */
	static final int STARTING_CHECKS = 5;

	private final RegistryStatus status;

	private final Duration restartGuard;

	/** Last state logged per address; touched only by the polling thread. */
	private final Map<String, State> last = new HashMap<>();

	/** Last reason logged for a node that is down, per address. */
	private final Map<String, String> lastReason = new HashMap<>();

	/**
	 * The guard a held-back node was last reported held back for ("rejoin-delay 600 s,
	 * recorded by ..."), per address: the one it served when it votes again.
	 */
	private final Map<String, String> served = new HashMap<>();

	private static final Pattern REJOIN_DELAY = Pattern.compile("\\((rejoin-delay [^)]*)\\)");

	/** Consecutive checks a node was seen starting, per address. */
	private final Map<String, Integer> starting = new HashMap<>();

	private ScheduledExecutorService scheduler;

	/** What a node is called in the lines: a Redis master, or an etcd member. */
	private final String noun;

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
		this.noun = "etcd".equals(status.mode()) ? "etcd member" : "master";
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
		boolean lacking = votingNow < this.status.quorum();
		String summary = votingNow + " of " + nodes.size() + " " + this.noun + "s vote now, a lock needs "
				+ this.status.quorum();
		for (RegistryStatus.Node node : nodes) {
			String address = node.address();
			State state = State.of(node);
			if (state == State.STARTING) {
				int checks = this.starting.merge(address, 1, Integer::sum);
				if (checks <= STARTING_CHECKS) {
					// not logged yet: connected, its scripts or state being read
					continue;
				}
				state = State.HELD_BACK;
			}
			else {
				this.starting.remove(address);
			}
			if (state == State.HELD_BACK && node.lastError() != null) {
				Matcher guard = REJOIN_DELAY.matcher(node.lastError());
				if (guard.find()) {
					this.served.put(address, guard.group(1));
				}
			}
			State before = this.last.put(address, state);
			if (state == before) {
				if (state == State.DOWN) {
					logChangedReason(node, summary);
				}
				continue;
			}
			if (before == State.DOWN && state != State.VOTING) {
				logger.info("quorumlock: " + this.noun + " " + address + " is connected again");
			}
			switch (state) {
				case DOWN -> {
					this.lastReason.put(address, node.lastError());
					logger.warn("quorumlock: " + this.noun + " " + address + " is " + notConnected(node) + "; "
							+ summary + (lacking ? ": locks fail until enough " + this.noun + "s are back" : ""));
				}
				case HELD_BACK -> logger.warn(heldBack(node, summary, lacking));
				case EVICTING -> logger.warn("quorumlock: " + this.noun + " " + address + " does not vote: "
						+ reason(node, "it can evict lock keys (maxmemory-policy)") + "; " + summary
						+ (lacking ? ": locks fail until it votes again" : ""));
				case SAME_SERVER ->
					logger.warn("quorumlock: " + this.noun + " " + address + " is the same Redis server as "
							+ node.sameServerAs() + " (same run_id): it is counted once; " + summary);
				case VOTING -> {
					if (before == State.DOWN) {
						logger.info("quorumlock: " + this.noun + " " + address + " is connected again and votes; "
								+ summary);
					}
					else if (before == State.HELD_BACK && this.noun.startsWith("etcd")) {
						logger.info("quorumlock: " + this.noun + " " + address
								+ " votes again: it answers with a leader; " + summary);
					}
					else if (before == State.HELD_BACK) {
						String guard = this.served.remove(address);
						logger.info("quorumlock: " + this.noun + " " + address + " votes again: the restart guard ("
								+ ((guard != null) ? guard : seconds(this.restartGuard))
								+ ") has passed or it was declared brand new; " + summary);
					}
					else if (before == State.EVICTING) {
						logger.info("quorumlock: " + this.noun + " " + address
								+ " votes again: it no longer evicts lock keys; " + summary);
					}
				}
				default -> {
				}
			}
		}
	}

	/** A node still down for another reason than the one logged: say it once. */
	private void logChangedReason(RegistryStatus.Node node, String summary) {
		String reason = node.lastError();
		if (reason != null && !reason.equals(this.lastReason.get(node.address()))) {
			this.lastReason.put(node.address(), reason);
			logger.warn("quorumlock: " + this.noun + " " + node.address() + " is still " + notConnected(node) + "; "
					+ summary);
		}
	}

	/** {@code not connected, last attempt: <the server's or transport's words>}. */
	private static String notConnected(RegistryStatus.Node node) {
		String reason = node.lastError();
		if (reason == null) {
			return "not connected";
		}
		return reason.startsWith("not connected") ? reason : "not connected (" + reason + ")";
	}

	private String heldBack(RegistryStatus.Node node, String summary, boolean lacking) {
		String reason = node.lastError();
		String consequence = (lacking ? ": locks fail until then" : "");
		if (reason == null || reason.startsWith("held back by the restart guard")) {
			String what = (reason != null) ? reason
					: "held back by the restart guard for another " + seconds(node.heldBackFor()) + " (restart guard "
							+ seconds(this.restartGuard)
							+ ", the longest declared lease or quorumlock.rejoin-delay): it "
							+ "lost its data, or a new server process came up with it, and may lack the keys of leases "
							+ "still held";
			return "quorumlock: " + this.noun + " " + node.address() + " is " + what + "; " + summary + consequence
					+ ". For brand-new masters on which no lock was ever taken, see quorumlock.fresh-master-run-ids";
		}
		return "quorumlock: " + this.noun + " " + node.address() + " does not vote: " + reason + "; " + summary
				+ consequence;
	}

	private static String reason(RegistryStatus.Node node, String otherwise) {
		return (node.lastError() != null) ? node.lastError() : otherwise;
	}

	private static String seconds(Duration duration) {
		long millis = Math.max(0, duration.toMillis());
		return ((millis + 999) / 1000) + " s";
	}

	/** What is logged about a node. */
	enum State {

		/** Not connected. */
		DOWN,

		/** Connected, its scripts or uptime not read yet: logged only if it lasts. */
		STARTING,

		/** Held back by the restart guard, or not ready. */
		HELD_BACK,

		/** Not voting: it can evict lock keys. */
		EVICTING,

		/** The same server as an earlier node. */
		SAME_SERVER,

		/** Counts toward a quorum. */
		VOTING;

		static State of(RegistryStatus.Node node) {
			return switch (node.state()) {
				case DOWN -> DOWN;
				case SAME_SERVER -> SAME_SERVER;
				case VOTING -> VOTING;
				case EVICTING -> EVICTING;
				case HELD_BACK -> (node.uptime().isNegative()) ? STARTING : HELD_BACK;
			};
		}

	}

}
