package io.quorumlock.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthContributor;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;

import io.quorumlock.RegistryStatus;

/**
 * The {@code distributedLock} health contributor on Spring Boot 3
 * ({@link Boot4DistributedLockHealth} is its Boot 4 twin; both report what
 * {@code LockHealthReport} decides). UP when a quorum of nodes is up and voting, DOWN
 * otherwise. Single mode is one indicator; quorum mode is a composite of a {@code quorum}
 * indicator, which alone decides the aggregate, and one indicator per node
 * ({@code node-1} … in configuration order) that reports UP, or {@value #NOT_VOTING} for
 * a node that is down or held back by the restart guard. {@value #NOT_VOTING} is not in
 * the status order, so Boot's aggregation leaves it out: a minority of nodes down shows
 * in the details without turning the application DOWN.
 */
public final class DistributedLockHealth {

	/** Status of a node that does not count toward a quorum. */
	public static final String NOT_VOTING = LockHealthReport.NOT_VOTING;

	private DistributedLockHealth() {
	}

	/**
	 * The contributor for a registry.
	 * @param status the registry's status view
	 * @return one indicator in single mode, a composite in quorum mode
	 */
	public static HealthContributor contributor(RegistryStatus status) {
		if (LockHealthReport.single(status)) {
			return new QuorumIndicator(status);
		}
		Map<String, HealthContributor> members = new LinkedHashMap<>();
		members.put("quorum", new QuorumIndicator(status));
		for (int i = 0; i < status.nodes().size(); i++) {
			members.put(LockHealthReport.nodeName(i), new NodeIndicator(status, i));
		}
		return CompositeHealthContributor.fromMap(members);
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
			LockHealthReport.Verdict verdict = LockHealthReport.quorum(this.status);
			builder.status(verdict.up() ? Status.UP : Status.DOWN).withDetails(verdict.details());
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
			LockHealthReport.Verdict verdict = LockHealthReport.node(this.status, this.index);
			return Health.status(verdict.up() ? Status.UP : new Status(NOT_VOTING))
				.withDetails(verdict.details())
				.build();
		}

	}

}
