package io.quorumlock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;

/**
 * Read-only view of a registry for operators: its mode, its nodes and the leases this
 * instance holds. What the actuator endpoint and health indicator show; never carries
 * credentials.
 */
public interface RegistryStatus {

	/**
	 * {@code "single"} for one node, {@code "quorum"} for N independent masters.
	 * @return the mode
	 */
	String mode();

	/**
	 * Votes a grant needs.
	 * @return the quorum
	 */
	int quorum();

	/**
	 * Each node, in configuration order.
	 * @return the node states
	 */
	List<Node> nodes();

	/**
	 * Leases held by this instance now.
	 * @return the held leases
	 */
	List<HeldLease> leases();

	/**
	 * Whether a quorum of nodes is connected and allowed to vote.
	 * @return whether grants are possible
	 */
	default boolean quorumAvailable() {
		return nodes().stream().filter(Node::countsTowardQuorum).count() >= quorum();
	}

	/**
	 * One node.
	 *
	 * @param address {@code host:port}, never credentials
	 * @param up whether its connection is open
	 * @param lastLatency round-trip time of its last answered command, zero if none yet
	 * @param uptime how long the server has been up, as last read; negative if unknown
	 * @param voting whether it counts toward a quorum when connected: not held back by
	 * the restart guard, and not the same server as an earlier node
	 * @param heldBackFor how much longer the restart guard holds it back; zero if voting
	 * @param sameServerAs the address of an earlier node that reaches the same Redis
	 * server (the same {@code run_id}), through which that server votes; null if none
	 */
	record Node(String address, boolean up, Duration lastLatency, Duration uptime, boolean voting, Duration heldBackFor,
			String sameServerAs) {

		/**
		 * A node that is no other node's duplicate.
		 * @param address {@code host:port}, never credentials
		 * @param up whether its connection is open
		 * @param lastLatency round-trip time of its last answered command, zero if none
		 * yet
		 * @param uptime how long the server has been up, as last read; negative if
		 * unknown
		 * @param voting whether the restart guard lets it count toward a quorum
		 * @param heldBackFor how much longer the restart guard holds it back; zero if
		 * voting
		 */
		public Node(String address, boolean up, Duration lastLatency, Duration uptime, boolean voting,
				Duration heldBackFor) {
			this(address, up, lastLatency, uptime, voting, heldBackFor, null);
		}

		/**
		 * Whether it counts toward a quorum now: connected, and not held back by the
		 * restart guard nor a duplicate of an earlier node.
		 * @return whether it can vote in the next round
		 */
		public boolean countsTowardQuorum() {
			return this.up && this.voting;
		}

	}

	/**
	 * One lease held by this instance.
	 *
	 * @param lock the lock's label (name, or class and method), never an evaluated key
	 * @param keys the Redis keys it holds
	 * @param heldSince when it was granted
	 * @param remaining validity left
	 * @param fencingToken its fencing token if one was asked for
	 * @param holdCount holds by its thread (re-entries plus one)
	 * @param mode {@code exclusive}, {@code shared} or {@code permit}
	 * @param slot the permit slot it owns, for a permit; empty otherwise
	 */
	record HeldLease(String lock, List<String> keys, Instant heldSince, Duration remaining, OptionalLong fencingToken,
			int holdCount, String mode, java.util.OptionalInt slot) {

		/**
		 * An exclusive lease.
		 * @param lock the lock's label (name, or class and method), never an evaluated
		 * key
		 * @param keys the Redis keys it holds
		 * @param heldSince when it was granted
		 * @param remaining validity left
		 * @param fencingToken its fencing token if one was asked for
		 * @param holdCount holds by its thread (re-entries plus one)
		 */
		public HeldLease(String lock, List<String> keys, Instant heldSince, Duration remaining,
				OptionalLong fencingToken, int holdCount) {
			this(lock, keys, heldSince, remaining, fencingToken, holdCount, "exclusive", java.util.OptionalInt.empty());
		}

	}

}
