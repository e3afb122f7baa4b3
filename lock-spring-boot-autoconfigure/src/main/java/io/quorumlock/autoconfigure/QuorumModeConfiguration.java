package io.quorumlock.autoconfigure;

import java.util.List;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockListener;
import io.quorumlock.aop.DeclaredLeases;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * Quorum mode: the engine on the independent masters listed in {@code quorumlock.nodes}
 * (or by {@link QuorumLockConnectionDetails} beans, which take precedence), with its own
 * Lettuce resources (tuned to reconnect quickly to a restarted node) and, for
 * {@code rediss://} nodes, the trust of the SSL bundle named by
 * {@code quorumlock.ssl.bundle}. Its restart guard covers every lease declared: the
 * configured ones and every {@code @DistributedLock} method's, read from the bean
 * definitions before the engine is built.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(DistributedLockRegistry.class)
@Conditional(QuorumModeCondition.Quorum.class)
class QuorumModeConfiguration {

	@Bean(destroyMethod = "close")
	QuorumLockEngine quorumLockEngine(QuorumLockProperties properties, ObjectProvider<LockListener> listeners,
			ObjectProvider<QuorumLockEngineCustomizer> customizers, ObjectProvider<SslBundles> sslBundles,
			ObjectProvider<QuorumLockConnectionDetails> connectionDetails, ListableBeanFactory beanFactory) {
		QuorumLockEngineConfigurer configurer = new QuorumLockEngineConfigurer(properties, listeners, customizers);
		configurer.validate();
		// the restart guard covers every lease declared, annotated ones included
		DeclaredLeases declared = DeclaredLeases.scan(beanFactory,
				(name) -> ConfiguredLockOptions.forName(properties, name));
		if (properties.getRejoinDelay() != null) {
			declared.checkCoveredBy(properties.getRejoinDelay());
		}
		QuorumLockEngine.Builder builder = QuorumLockEngine.builder()
			.redisUris(QuorumNodes.toRedisUris(nodes(properties, connectionDetails)))
			.declaredLeases(declared.leases());
		SslBundle bundle = QuorumLockSsl.configuredBundle(properties, sslBundles.getIfAvailable());
		if (bundle != null) {
			builder.sslOptions(QuorumLockSsl.sslOptions(bundle));
		}
		return configurer.build(builder);
	}

	/**
	 * The nodes of every {@link QuorumLockConnectionDetails} bean, without repeats, in
	 * place of {@code quorumlock.nodes} when there is any such bean.
	 */
	static List<QuorumLockProperties.Node> nodes(QuorumLockProperties properties,
			ObjectProvider<QuorumLockConnectionDetails> connectionDetails) {
		List<String> uris = connectionDetails.orderedStream()
			.flatMap((details) -> details.nodeUris().stream())
			.distinct()
			.toList();
		if (uris.isEmpty()) {
			return properties.getNodes();
		}
		return uris.stream().map(QuorumLockProperties.Node::new).toList();
	}

}
