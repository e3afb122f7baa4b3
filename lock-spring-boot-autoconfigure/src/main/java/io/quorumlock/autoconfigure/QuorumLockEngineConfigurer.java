package io.quorumlock.autoconfigure;

import java.time.Duration;

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

	/**
	 * Check the properties; call before looking at the connection.
	 * @param nodeTimeout the node timeout the engine will be built with
	 * ({@link NodeTimeouts})
	 */
	void validate(Duration nodeTimeout) {
		QuorumLockPropertiesValidator.validate(this.properties, nodeTimeout);
	}

	/**
	 * Apply the properties, the listeners and the customizers, build the engine and log
	 * the start-up line.
	 * @param nodeTimeout the node timeout checked by {@link #validate(Duration)}
	 * @param source where the nodes come from, for the start-up line
	 */
	QuorumLockEngine build(QuorumLockEngine.Builder builder, Duration nodeTimeout, String source) {
		QuorumLockProperties properties = this.properties;
		builder.keyPrefix(properties.getKeyPrefix())
			.defaults(ConfiguredLockOptions.global(properties))
			.nodeTimeout(nodeTimeout)
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
