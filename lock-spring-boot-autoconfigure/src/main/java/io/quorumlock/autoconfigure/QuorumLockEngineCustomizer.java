package io.quorumlock.autoconfigure;

import io.quorumlock.redis.QuorumLockEngine;

/**
 * Callback to customize the {@link QuorumLockEngine.Builder} after the
 * {@code quorumlock.*} properties are applied and before the engine is built. Beans of
 * this type are applied in {@link org.springframework.core.annotation.Order order}.
 */
@FunctionalInterface
public interface QuorumLockEngineCustomizer {

	/**
	 * Customize the builder.
	 * @param builder the builder
	 */
	void customize(QuorumLockEngine.Builder builder);

}
