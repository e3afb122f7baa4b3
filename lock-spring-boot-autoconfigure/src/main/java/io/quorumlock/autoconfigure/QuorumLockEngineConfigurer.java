package io.quorumlock.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;

import io.quorumlock.LockListener;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * Applies what both modes share to a builder: the checked {@code quorumlock.*}
 * properties, every {@link LockListener} bean and then every
 * {@link QuorumLockEngineCustomizer}, in order.
 */
final class QuorumLockEngineConfigurer {

	private final QuorumLockProperties properties;

	private final ObjectProvider<LockListener> listeners;

	private final ObjectProvider<QuorumLockEngineCustomizer> customizers;

	QuorumLockEngineConfigurer(QuorumLockProperties properties, ObjectProvider<LockListener> listeners,
			ObjectProvider<QuorumLockEngineCustomizer> customizers) {
		this.properties = properties;
		this.listeners = listeners;
		this.customizers = customizers;
	}

	/** Check the properties; call before looking at the connection. */
	void validate() {
		QuorumLockPropertiesValidator.validate(this.properties);
	}

	/**
	 * Apply the properties, the listeners and the customizers, build the engine and log
	 * the start-up line.
	 * @param source where the nodes come from, for the start-up line
	 */
	QuorumLockEngine build(QuorumLockEngine.Builder builder, String source) {
		QuorumLockProperties properties = this.properties;
		builder.keyPrefix(properties.getKeyPrefix())
			.defaults(ConfiguredLockOptions.global(properties))
			.nodeTimeout(properties.getNodeTimeout())
			.clockDriftFactor(properties.getClockDriftFactor())
			.retryDelay(properties.getRetryDelay().getMin(), properties.getRetryDelay().getMax())
			.retryBudget(properties.getRetryBudget())
			.onLeaseLost(properties.getOnLeaseLost())
			.syncReplicas(properties.getSyncReplicas())
			.allowEvictingMasters(properties.isAllowEvictingMasters())
			.fencingCounterTtl(properties.getFencing().getCounterTtl())
			.maxKeyLength(properties.getMaxKeyLength());
		if (properties.getRejoinDelay() != null) {
			builder.rejoinDelay(properties.getRejoinDelay());
		}
		properties.getInstances()
			.forEach((name, instance) -> builder.instance(name, ConfiguredLockOptions.instance(instance)));
		this.listeners.orderedStream().forEach(builder::listener);
		this.customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		QuorumLockEngine engine = builder.build();
		QuorumLockStartupLog.log(engine, properties, source);
		return engine;
	}

}
