package io.quorumlock.redis;

import io.quorumlock.RegistryStatus;
import io.quorumlock.redis.node.NodeHeldBackException;
import io.quorumlock.redis.node.RedisNode;
import io.quorumlock.redis.node.ServerState;

/**
 * Whether a node may vote now, and if not, why: it is ready and its state allows it
 * ({@link RedisNode#votes}: scripts loaded in this epoch, data trusted by the restart
 * guard, no eviction policy that could drop lock keys unless allowed), and in quorum mode
 * its server's {@code run_id} is known and no earlier entry reaches the same server.
 */
final class HeldBack {

	/** Null in single mode. */
	private final SameServer sameServer;

	/** Whether masters that can evict lock keys vote anyway (an operator's choice). */
	private final boolean evictionAllowed;

	HeldBack(SameServer sameServer, boolean evictionAllowed) {
		this.sameServer = sameServer;
		this.evictionAllowed = evictionAllowed;
	}

	/** Whether a node may vote now. */
	boolean votes(RedisNode node) {
		return node.votes(this.evictionAllowed) && (this.sameServer == null || this.sameServer.votes(node));
	}

	/**
	 * How soon {@code node} may vote: zero if it does or may any moment (a connection
	 * down for less than {@code reconnectingNanos} is being re-established), the rest of
	 * its hold-back, or {@link Long#MAX_VALUE} if it cannot (down for longer, evicting,
	 * the same server as an earlier entry).
	 */
	long votesInNanos(RedisNode node, long reconnectingNanos) {
		if (votes(node)) {
			return 0;
		}
		if (this.sameServer != null && sameServerAs(node) != null) {
			return Long.MAX_VALUE;
		}
		if (!node.isConnected()) {
			return (node.downForNanos() < reconnectingNanos) ? 0 : Long.MAX_VALUE;
		}
		return node.votesInNanos(this.evictionAllowed);
	}

	/** The earlier entry that reaches the same server as {@code node}, or null. */
	RedisNode sameServerAs(RedisNode node) {
		return (this.sameServer != null) ? this.sameServer.sameServerAs(node) : null;
	}

	/** How much longer the restart guard holds {@code node} back, for status. */
	long remainingNanos(RedisNode node) {
		ServerState state = node.state();
		return (state != null) ? state.heldBackNanos() : 0;
	}

	/** Whether {@code node} is held back because it can evict lock keys. */
	boolean isEvicting(RedisNode node) {
		ServerState state = node.state();
		return !this.evictionAllowed && state != null && state.evicting() != null;
	}

	/** Why {@code node} does not vote now, as the failure its round reports. */
	NodeHeldBackException reason(RedisNode node) {
		return new NodeHeldBackException(why(node));
	}

	/**
	 * Why {@code node} does not vote now, in the server's or the transport's words where
	 * there are any (never credentials); when it votes, what held it back last time is
	 * not known here, so the text says it waits for its {@code run_id}.
	 */
	String why(RedisNode node) {
		RedisNode same = sameServerAs(node);
		if (same != null) {
			return "same Redis server as " + same.address() + " (run_id " + node.runId()
					+ "), which votes for it: counted once";
		}
		String why = node.notVoting(this.evictionAllowed);
		if (why != null) {
			return why;
		}
		return "held back until its run_id is read (to count a master listed twice once)";
	}

	/** What {@code node} is doing now, for status. */
	RegistryStatus.NodeState state(RedisNode node) {
		if (!node.isConnected()) {
			return RegistryStatus.NodeState.DOWN;
		}
		if (sameServerAs(node) != null) {
			return RegistryStatus.NodeState.SAME_SERVER;
		}
		if (votes(node)) {
			return RegistryStatus.NodeState.VOTING;
		}
		// evicting once ready and its state known (the restart guard holds an evicting
		// master back too, and on after it stops)
		ServerState state = node.state();
		return (isEvicting(node) && node.isReady() && state.isKnown()) ? RegistryStatus.NodeState.EVICTING
				: RegistryStatus.NodeState.HELD_BACK;
	}

}
