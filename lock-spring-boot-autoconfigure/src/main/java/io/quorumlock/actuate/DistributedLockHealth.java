package io.quorumlock.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthContributor;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;

import io.quorumlock.RegistryStatus;

/**
 * The {@code distributedLock} health contributor. UP when a quorum of nodes is up and
 * voting, DOWN otherwise. Single mode is one indicator; quorum mode is a composite of a
 * {@code quorum} indicator, which alone decides the aggregate, and one indicator per node
 * ({@code node-1} … in configuration order) that reports UP, or {@value #NOT_VOTING} for
 * a node that is down or held back by the restart guard. {@value #NOT_VOTING} is not in
 * the status order, so Boot's aggregation leaves it out: a minority of nodes down shows
 * in the details without turning the application DOWN.
 */
public final class DistributedLockHealth {

	/** Status of a node that does not count toward a quorum. */
	public static final String NOT_VOTING = "NOT_VOTING";

	private DistributedLockHealth() {
	}

	/**
	 * The contributor for a registry.
	 * @param status the registry's status view
	 * @return one indicator in single mode, a composite in quorum mode
	 */
	public static HealthContributor contributor(RegistryStatus status) {
		if (status.nodes().size() == 1) {
			return new QuorumIndicator(status);
		}
		Map<String, HealthContributor> members = new LinkedHashMap<>();
		members.put("quorum", new QuorumIndicator(status));
		for (int i = 0; i < status.nodes().size(); i++) {
			members.put("node-" + (i + 1), new NodeIndicator(status, i));
		}
		return CompositeHealthContributor.fromMap(members);
	}

	static Map<String, Object> details(RegistryStatus.Node node) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("address", node.address());
		details.put("up", node.up());
		details.put("voting", node.voting());
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
		else if (!node.voting() && node.up()) {
			details.put("heldBackBy",
					"restart guard, for another " + node.heldBackFor().toSeconds() + " s (quorumlock.rejoin-delay)");
		}
		return details;
	}

	/** UP iff a quorum of nodes is up and voting. */
	static final class QuorumIndicator extends AbstractHealthIndicator {

		private final RegistryStatus status;

		QuorumIndicator(RegistryStatus status) {
			super("Distributed lock health check failed");
			this.status = status;
		}

		@Override
		protected void doHealthCheck(Health.Builder builder) {
			List<RegistryStatus.Node> nodes = this.status.nodes();
			long voting = nodes.stream().filter(RegistryStatus.Node::countsTowardQuorum).count();
			builder.status((voting >= this.status.quorum()) ? Status.UP : Status.DOWN)
				.withDetail("mode", this.status.mode())
				.withDetail("quorum", this.status.quorum())
				.withDetail("voting", voting)
				.withDetail("nodes", nodes.size());
			if (nodes.size() == 1) {
				builder.withDetails(details(nodes.get(0)));
			}
		}

	}

	/** One node: UP when it votes, NOT_VOTING otherwise. */
	static final class NodeIndicator implements HealthIndicator {

		private final RegistryStatus status;

		private final int index;

		NodeIndicator(RegistryStatus status, int index) {
			this.status = status;
			this.index = index;
		}

		@Override
		public Health health() {
			RegistryStatus.Node node = this.status.nodes().get(this.index);
			Status state = node.countsTowardQuorum() ? Status.UP : new Status(NOT_VOTING);
			return Health.status(state).withDetails(details(node)).build();
		}

	}

}
