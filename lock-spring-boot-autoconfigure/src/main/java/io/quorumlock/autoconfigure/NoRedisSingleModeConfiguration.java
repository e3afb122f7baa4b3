package io.quorumlock.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockListener;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * Single mode on a Boot line whose Redis support is not on the classpath (Boot 4 without
 * {@code spring-boot-data-redis}): no connection to read, so start-up fails with the same
 * property error as a Boot 3 application without a Redis connection, instead of leaving
 * the aspect without a registry.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingClass({ SingleModeConfiguration.BOOT3_CONNECTION_DETAILS,
		Boot4SingleModeConfiguration.BOOT4_CONNECTION_DETAILS })
@ConditionalOnMissingBean(DistributedLockRegistry.class)
@Conditional(QuorumModeCondition.Single.class)
class NoRedisSingleModeConfiguration {

	@Bean(destroyMethod = "close")
	QuorumLockEngine quorumLockEngine(QuorumLockProperties properties, ObjectProvider<LockListener> listeners,
			ObjectProvider<QuorumLockEngineCustomizer> customizers) {
		return SingleModeNodes.engine(properties, listeners, customizers, null, null, null,
				QuorumLockStartupLog.SPRING_DATA_REDIS, null, null);
	}

}
