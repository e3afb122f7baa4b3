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
 * Etcd mode when {@code quorumlock.etcd.endpoints} lists an endpoint; else quorum mode
 * when {@code quorumlock.nodes} lists at least one node, in either form, or a
 * {@link QuorumLockConnectionDetails} bean is defined (e.g. by Redis containers with
 * {@code @ServiceConnection(name = "quorumlock")}); single mode otherwise. Etcd mode
 * beside Redis masters is refused when the etcd registry is built
 * ({@link EtcdModeConfiguration}). Evaluated when beans are registered, after Boot's
 * service connections have registered theirs.
 */
abstract class QuorumModeCondition extends SpringBootCondition implements ConfigurationCondition {

	/** Where the locks live. */
	enum Mode {

		SINGLE, QUORUM, ETCD

	}

	private final Mode mode;

	QuorumModeCondition(Mode mode) {
		this.mode = mode;
	}

	@Override
	public ConfigurationPhase getConfigurationPhase() {
		return ConfigurationPhase.REGISTER_BEAN;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		if (hasEtcdEndpoints(context.getEnvironment())) {
			return new ConditionOutcome(this.mode == Mode.ETCD, "quorumlock.etcd.endpoints is set: etcd mode");
		}
		boolean details = hasConnectionDetails(context.getBeanFactory());
		boolean nodes = details || hasNodes(context.getEnvironment());
		String message = details ? "a QuorumLockConnectionDetails bean is defined: quorum mode"
				: nodes ? "quorumlock.nodes is set: quorum mode"
						: "quorumlock.nodes is empty: single mode on spring.data.redis";
		return new ConditionOutcome(this.mode == (nodes ? Mode.QUORUM : Mode.SINGLE), message);
	}

	/** Whether {@code quorumlock.etcd.endpoints} lists at least one endpoint. */
	static boolean hasEtcdEndpoints(Environment environment) {
		return Binder.get(environment)
			.bind("quorumlock.etcd.endpoints", Bindable.listOf(String.class))
			.map(List::isEmpty)
			.map((empty) -> !empty)
			.orElse(false);
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

	/** Matches when nodes are listed and no etcd endpoint. */
	static final class Quorum extends QuorumModeCondition {

		Quorum() {
			super(Mode.QUORUM);
		}

	}

	/** Matches when no node and no etcd endpoint is listed. */
	static final class Single extends QuorumModeCondition {

		Single() {
			super(Mode.SINGLE);
		}

	}

	/** Matches when etcd endpoints are listed. */
	static final class Etcd extends QuorumModeCondition {

		Etcd() {
			super(Mode.ETCD);
		}

	}

}
