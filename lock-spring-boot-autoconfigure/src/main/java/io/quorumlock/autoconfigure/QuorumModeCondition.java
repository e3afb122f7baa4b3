package io.quorumlock.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Quorum mode when {@code quorumlock.nodes} lists at least one node, in either form;
 * single mode otherwise.
 */
abstract class QuorumModeCondition extends SpringBootCondition {

	private final boolean quorum;

	QuorumModeCondition(boolean quorum) {
		this.quorum = quorum;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		boolean nodes = hasNodes(context.getEnvironment());
		String message = nodes ? "quorumlock.nodes is set: quorum mode"
				: "quorumlock.nodes is empty: single mode on spring.data.redis";
		return new ConditionOutcome(nodes == this.quorum, message);
	}

	static boolean hasNodes(Environment environment) {
		return Binder.get(environment)
			.bind("quorumlock.nodes", Bindable.listOf(Node.class))
			.map(List::isEmpty)
			.map((empty) -> !empty)
			.orElse(false);
	}

	/** Matches when nodes are listed. */
	static final class Quorum extends QuorumModeCondition {

		Quorum() {
			super(true);
		}

	}

	/** Matches when no node is listed. */
	static final class Single extends QuorumModeCondition {

		Single() {
			super(false);
		}

	}

}
