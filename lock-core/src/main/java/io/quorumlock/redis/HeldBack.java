package io.quorumlock.redis;

import java.util.concurrent.TimeUnit;

/**
 * Whether a node may vote now, and if not, why: the restart guard lets it (its uptime is
 * known and long enough), and in quorum mode its server's {@code run_id} is known and no
 * earlier entry reaches the same server.
 */
final class HeldBack {

	/** The restart guard in force, in nanoseconds; zero when off. */
	private final long guardNanos;

	/** Null in single mode. */
	private final SameServer sameServer;

	/** run_ids an operator declared brand new: they vote at once while they last. */
	private final java.util.Set<String> freshRunIds;

	HeldBack(long guardNanos, SameServer sameServer, java.util.Set<String> freshRunIds) {
		this.guardNanos = guardNanos;
		this.sameServer = sameServer;
		this.freshRunIds = freshRunIds;
	}

	/** Whether every node votes whatever it says about itself (no guard, single mode). */
	boolean isOff() {
		return this.guardNanos <= 0 && this.sameServer == null;
	}

	long guardNanos() {
		return this.guardNanos;
	}

	/** Whether a node may vote now. */
	boolean votes(RedisNode node) {
		return guardLets(node) && (this.sameServer == null || this.sameServer.votes(node));
	}

	/**
	 * Whether the restart guard lets a node vote: up long enough, or a server process
	 * (run_id, read on the connection open now) an operator declared brand new.
	 */
	private boolean guardLets(RedisNode node) {
		if (node.isVoting(this.guardNanos)) {
			return true;
		}
		String runId = node.runId();
		return runId != null && this.freshRunIds.contains(runId);
	}

	/** The earlier entry that reaches the same server as {@code node}, or null. */
	RedisNode sameServerAs(RedisNode node) {
		return (this.sameServer != null) ? this.sameServer.sameServerAs(node) : null;
	}

	/** How much longer the restart guard holds {@code node} back, for status. */
	long remainingNanos(RedisNode node) {
		if (guardLets(node)) {
			return 0;
		}
		long uptime = node.uptimeNanos();
		return Math.max(0, (uptime < 0) ? this.guardNanos : this.guardNanos - uptime);
	}

	/** Why {@code node} does not vote now, as the failure its round reports. */
	NodeHeldBackException reason(RedisNode node) {
		RedisNode same = sameServerAs(node);
		if (same != null) {
			return new NodeHeldBackException("same Redis server as " + same.address() + " (run_id " + node.runId()
					+ "), which votes for it: counted once");
		}
		if (!node.isConnected()) {
			// a dead master is named as such, not as one the guard holds back
			String last = node.lastConnectFailure();
			return new NodeHeldBackException("not connected" + ((last != null) ? ", last attempt: " + last : ""));
		}
		if (guardLets(node) && node.runId() == null) {
			return new NodeHeldBackException(
					"held back until its run_id is read (to count a master listed twice once)");
		}
		long uptime = node.uptimeNanos();
		long guardSeconds = TimeUnit.NANOSECONDS.toSeconds(this.guardNanos);
		if (uptime < 0) {
			return new NodeHeldBackException(
					"held back by the restart guard until its uptime is read (rejoin-delay " + guardSeconds + " s)");
		}
		long left = TimeUnit.NANOSECONDS.toSeconds(this.guardNanos - uptime + 999_999_999);
		return new NodeHeldBackException(
				"held back by the restart guard for another " + left + " s (rejoin-delay " + guardSeconds + " s)");
	}

}
