package io.quorumlock.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Quorum mode when {@code quorumlock.nodes} lists at least one node, in either form, or a
 * {@link QuorumLockConnectionDetails} bean is defined (e.g. by Redis containers with
 * {@code @ServiceConnection(name = "quorumlock")}); single mode otherwise. Evaluated when
 * beans are registered, after Boot's service connections have registered theirs.
 */
abstract class QuorumModeCondition extends SpringBootCondition implements ConfigurationCondition {

	private final boolean quorum;

	QuorumModeCondition(boolean quorum) {
		this.quorum = quorum;
	}

	@Override
	public ConfigurationPhase getConfigurationPhase() {
		return ConfigurationPhase.REGISTER_BEAN;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		boolean details = hasConnectionDetails(context.getBeanFactory());
		boolean nodes = details || hasNodes(context.getEnvironment());
		String message = details ? "a QuorumLockConnectionDetails bean is defined: quorum mode"
				: nodes ? "quorumlock.nodes is set: quorum mode"
						: "quorumlock.nodes is empty: single mode on spring.data.redis";
		return new ConditionOutcome(nodes == this.quorum, message);
	}

	private static boolean hasConnectionDetails(ConfigurableListableBeanFactory beanFactory) {
		return beanFactory != null
				&& beanFactory.getBeanNamesForType(QuorumLockConnectionDetails.class, true, false).length > 0;
	}

	static boolean hasNodes(Environment environment) {
		return Binder.get(environment)
			.bind("quorumlock.nodes", Bindable.listOf(NodeProperties.class))
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
