package io.quorumlock.actuate;

import java.util.List;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.util.Assert;

import io.quorumlock.RegistryStatus;

/**
 * Per-master Micrometer meters, read from the registry's status view when scraped, so
 * that "no quorum" can be told apart from contention and from a slow master. The series
 * are bounded by the number of masters:
 * <ul>
 * <li>{@code distributed.lock.node.state} — a gauge per master and state; tags
 * {@code node} = host:port as configured (never credentials), {@code state} = voting,
 * held-back, down, same-server or evicting; 1 for the master's current state, 0 for the
 * others (Prometheus: {@code distributed_lock_node_state}).</li>
 * <li>{@code distributed.lock.node.answers} — a counter per master and outcome; tags
 * {@code node}, {@code outcome} = yes, held (the key is held elsewhere), timeout,
 * not-connected, held-back or error: how each master answered the rounds of grants,
 * renewals and releases (Prometheus: {@code distributed_lock_node_answers_total}).</li>
 * </ul>
 * The nodes are those of the registry when it is bound; their order and number do not
 * change while it runs.
 */
public class NodeMetrics {

	/** Gauge of each master's state. */
	public static final String STATE = "distributed.lock.node.state";

	/** Counter of each master's answers, by outcome. */
	public static final String ANSWERS = "distributed.lock.node.answers";

	private final RegistryStatus status;

	/**
	 * Register the meters of every node of {@code status} in {@code registry}.
	 * @param registry the meter registry
	 * @param status the registry's status view
	 */
	public NodeMetrics(MeterRegistry registry, RegistryStatus status) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(status, "'status' must not be null");
		this.status = status;
		List<RegistryStatus.Node> nodes = status.nodes();
		for (int i = 0; i < nodes.size(); i++) {
			int index = i;
			String node = nodes.get(i).address();
			for (RegistryStatus.NodeState state : RegistryStatus.NodeState.values()) {
				Gauge.builder(STATE, this, value((n) -> (n.state() == state) ? 1 : 0, index))
					.description("State of each Redis master: 1 for its current state")
					.tag("node", node)
					.tag("state", state.tag())
					.register(registry);
			}
			for (String outcome : RegistryStatus.Answers.outcomes()) {
				FunctionCounter.builder(ANSWERS, this, value((n) -> n.answers().count(outcome), index))
					.description("Answers of each Redis master to the rounds, by outcome")
					.tag("node", node)
					.tag("outcome", outcome)
					.register(registry);
			}
		}
	}

	/** A node's value, or NaN when the status cannot be read or lacks the node. */
	private static ToDoubleFunction<NodeMetrics> value(ToDoubleFunction<RegistryStatus.Node> of, int index) {
		return (metrics) -> {
			try {
				List<RegistryStatus.Node> nodes = metrics.status.nodes();
				return (index < nodes.size()) ? of.applyAsDouble(nodes.get(index)) : Double.NaN;
			}
			catch (RuntimeException ex) {
				return Double.NaN;
			}
		};
	}

}
