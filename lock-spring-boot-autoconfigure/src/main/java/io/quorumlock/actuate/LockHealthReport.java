package io.quorumlock.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.quorumlock.RegistryStatus;

/**
 * What the {@code distributedLock} health contributor reports, independent of the Spring
 * Boot line's health API: the quorum's verdict and details, and each node's. Spring Boot
 * 3's {@link DistributedLockHealth} and Boot 4's {@link Boot4DistributedLockHealth} are
 * thin adapters over it, so both lines report the same statuses and details.
 */
final class LockHealthReport {

	/** Status code of a node that does not count toward a quorum. */
	static final String NOT_VOTING = "NOT_VOTING";

	private LockHealthReport() {
	}

	/** Whether the registry has a single node: one indicator rather than a composite. */
	static boolean single(RegistryStatus status) {
		return status.nodes().size() == 1;
	}

	/** The composite's member names in order: {@code quorum}, then {@code node-1} …. */
	static String nodeName(int index) {
		return "node-" + (index + 1);
	}

	/**
	 * The quorum's verdict: UP iff a quorum of nodes is up and voting.
	 *
	 * @param up whether a quorum of nodes votes
	 * @param details mode, quorum, voting and node counts (and, with one node, its
	 * details)
	 */
	record Verdict(boolean up, Map<String, Object> details) {
	}

	static Verdict quorum(RegistryStatus status) {
		List<RegistryStatus.Node> nodes = status.nodes();
		long voting = nodes.stream().filter(RegistryStatus.Node::countsTowardQuorum).count();
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("mode", status.mode());
		details.put("quorum", status.quorum());
		details.put("voting", voting);
		details.put("nodes", nodes.size());
		if (nodes.size() == 1) {
			details.putAll(details(nodes.get(0)));
		}
		return new Verdict(voting >= status.quorum(), details);
	}

	/** One node's verdict: up when it counts toward a quorum, else NOT_VOTING. */
	static Verdict node(RegistryStatus status, int index) {
		RegistryStatus.Node node = status.nodes().get(index);
		return new Verdict(node.countsTowardQuorum(), details(node));
	}

	static Map<String, Object> details(RegistryStatus.Node node) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("address", node.address());
		details.put("up", node.up());
		details.put("voting", node.voting());
		details.put("state", node.state().tag());
		if (node.since() != null) {
			details.put("since", node.since().toString());
		}
		if (node.lastError() != null) {
			// the server's or the transport's own words (WRONGPASS, TLS, refused...),
			// never credentials: the status carries none
			details.put("lastError", node.lastError());
		}
		details.put("lastLatencyMillis", node.lastLatency().toNanos() / 1_000_000.0);
		if (!node.uptime().isNegative()) {
			details.put("uptimeSeconds", node.uptime().toSeconds());
		}
		if (node.sameServerAs() != null) {
			// one master listed twice (two names, a DNS alias): it votes once, through
			// the earlier entry
			details.put("sameServerAs", node.sameServerAs());
			details.put("heldBackBy", "the same Redis server (run_id) as " + node.sameServerAs()
					+ ", which votes for it; list each master once in quorumlock.nodes");
		}
		else if (node.state() == RegistryStatus.NodeState.EVICTING) {
			details.put("heldBackBy", "its eviction policy, which can drop lock keys under memory pressure "
					+ "(maxmemory-policy; quorumlock.allow-evicting-masters)");
		}
		else if (!node.voting() && node.up() && node.heldBackFor().isZero() && node.lastError() != null) {
			// not ready yet, or held back for a reason the guard's time does not cover
			details.put("heldBackBy", node.lastError());
		}
		else if (!node.voting() && node.up()) {
			details.put("heldBackBy",
					"restart guard, for another " + node.heldBackFor().toSeconds() + " s (quorumlock.rejoin-delay)");
		}
		return details;
	}

}
