package io.quorumlock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.OptionalInt;

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
	 * What a node is doing now, as operators see it: the values of the
	 * {@code distributed.lock.node.state} meter's {@code state} tag.
	 */
	enum NodeState {

		/** Connected and counted toward a quorum. */
		VOTING("voting"),

		/**
		 * Connected but not counted: held back by the restart guard, or not ready yet
		 * (its scripts or its state not read on this connection).
		 */
		HELD_BACK("held-back"),

		/** Not connected. */
		DOWN("down"),

		/**
		 * The same Redis server ({@code run_id}) as an earlier node, which votes for it.
		 */
		SAME_SERVER("same-server"),

		/**
		 * Not counted because it can evict lock keys (a {@code maxmemory} limit with a
		 * {@code maxmemory-policy} other than {@code noeviction}).
		 */
		EVICTING("evicting");

		private final String tag;

		NodeState(String tag) {
			this.tag = tag;
		}

		/**
		 * The state's name for meters, logs and JSON: {@code voting}, {@code held-back},
		 * {@code down}, {@code same-server} or {@code evicting}.
		 * @return the name
		 */
		public String tag() {
			return this.tag;
		}

		/**
		 * The state a node reports when only its connection, its vote and a duplicate
		 * entry are known (the eviction policy is not).
		 * @param up whether its connection is open
		 * @param voting whether it counts toward a quorum when connected
		 * @param sameServerAs the earlier node it duplicates, or null
		 * @return the state
		 */
		public static NodeState of(boolean up, boolean voting, String sameServerAs) {
			if (!up) {
				return DOWN;
			}
			if (sameServerAs != null) {
				return SAME_SERVER;
			}
			return voting ? VOTING : HELD_BACK;
		}

	}

	/**
	 * How a node answered the commands of the rounds (grants, renewals, releases) since
	 * the registry started, one count per outcome: the values of the
	 * {@code distributed.lock.node.answers} meter's {@code outcome} tag.
	 *
	 * @param yes the command took effect ({@code yes})
	 * @param held the node answered but refused: the key is held by another token
	 * ({@code held})
	 * @param timeout no answer within the node timeout ({@code timeout})
	 * @param notConnected not sent or lost because the node was not connected
	 * ({@code not-connected})
	 * @param heldBack not counted because the node did not vote (restart guard, eviction
	 * policy, a duplicate entry; {@code held-back})
	 * @param error an error reply or any other failure ({@code error})
	 */
	record Answers(long yes, long held, long timeout, long notConnected, long heldBack, long error) {

		/** No answer yet. */
		public static final Answers NONE = new Answers(0, 0, 0, 0, 0, 0);

		/**
		 * The count of one outcome by its tag.
		 * @param outcome {@code yes}, {@code held}, {@code timeout},
		 * {@code not-connected}, {@code held-back} or {@code error}
		 * @return the count
		 * @throws IllegalArgumentException for another outcome
		 */
		public long count(String outcome) {
			return switch (outcome) {
				case "yes" -> this.yes;
				case "held" -> this.held;
				case "timeout" -> this.timeout;
				case "not-connected" -> this.notConnected;
				case "held-back" -> this.heldBack;
				case "error" -> this.error;
				default -> throw new IllegalArgumentException("no answer outcome '" + outcome + "'");
			};
		}

		/**
		 * Every outcome's tag, in the order of the components.
		 * @return {@code yes}, {@code held}, {@code timeout}, {@code not-connected},
		 * {@code held-back}, {@code error}
		 */
		public static List<String> outcomes() {
			return List.of("yes", "held", "timeout", "not-connected", "held-back", "error");
		}

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
	 * @param state what it is doing now
	 * @param lastError its last failure in the server's or the transport's own words
	 * (such as {@code WRONGPASS ...}, a TLS handshake failure, a refused connection, an
	 * evicting policy, or why the restart guard holds it back): while it does not vote,
	 * why not; once it votes, the last failure it had; null if none. Never credentials
	 * @param since when it entered its current state (as first seen by the registry);
	 * null if unknown
	 * @param answers how it answered the rounds so far
	 */
	record Node(String address, boolean up, Duration lastLatency, Duration uptime, boolean voting, Duration heldBackFor,
			String sameServerAs, NodeState state, String lastError, Instant since, Answers answers) {

		/**
		 * A node described by all its fields; {@code state} follows from {@code up},
		 * {@code voting} and {@code sameServerAs} when null, and {@code answers} is
		 * {@link Answers#NONE} when null.
		 * @param address {@code host:port}, never credentials
		 * @param up whether its connection is open
		 * @param lastLatency round-trip time of its last answered command
		 * @param uptime how long the server has been up; negative if unknown
		 * @param voting whether it counts toward a quorum when connected
		 * @param heldBackFor how much longer the restart guard holds it back
		 * @param sameServerAs an earlier node that reaches the same server, or null
		 * @param state what it is doing now
		 * @param lastError its last failure in the server's or transport's words, or null
		 * @param since when it entered its current state, or null
		 * @param answers how it answered the rounds so far
		 */
		public Node {
			if (state == null) {
				state = NodeState.of(up, voting, sameServerAs);
			}
			if (answers == null) {
				answers = Answers.NONE;
			}
		}

		/**
		 * A node without a recorded failure, state time or answers; its state follows
		 * from {@code up}, {@code voting} and {@code sameServerAs}.
		 * @param address {@code host:port}, never credentials
		 * @param up whether its connection is open
		 * @param lastLatency round-trip time of its last answered command, zero if none
		 * yet
		 * @param uptime how long the server has been up, as last read; negative if
		 * unknown
		 * @param voting whether it counts toward a quorum when connected
		 * @param heldBackFor how much longer the restart guard holds it back; zero if
		 * voting
		 * @param sameServerAs the address of an earlier node that reaches the same Redis
		 * server, through which that server votes; null if none
		 */
		public Node(String address, boolean up, Duration lastLatency, Duration uptime, boolean voting,
				Duration heldBackFor, String sameServerAs) {
			this(address, up, lastLatency, uptime, voting, heldBackFor, sameServerAs, null, null, null, null);
		}

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
			int holdCount, String mode, OptionalInt slot) {

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
