package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

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
 * instance leases, every {@code @DistributedLock} method's (read from the bean
 * definitions before the engine is built), and {@code quorumlock.lease} when it is set or
 * relied on; an unused default does not lengthen it.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(DistributedLockRegistry.class)
@Conditional(QuorumModeCondition.Quorum.class)
class QuorumModeConfiguration {

	@Bean(destroyMethod = "close")
	QuorumLockEngine quorumLockEngine(QuorumLockProperties properties, ObjectProvider<LockListener> listeners,
			ObjectProvider<QuorumLockEngineCustomizer> customizers, ObjectProvider<SslBundles> sslBundles,
			ObjectProvider<QuorumLockConnectionDetails> connectionDetails, ListableBeanFactory beanFactory,
			Environment environment) {
		QuorumLockEngineConfigurer configurer = new QuorumLockEngineConfigurer(properties, listeners, customizers);
		List<NodeProperties> nodes = nodes(properties, connectionDetails);
		boolean oneNode = nodes.size() == 1;
		configurer.validate(NodeTimeouts.effective(properties, oneNode, null, List.of()));
		// the restart guard covers every lease declared, annotated ones included
		DeclaredLeases declared = DeclaredLeases.scan(beanFactory,
				(name) -> ConfiguredLockOptions.forName(properties, name));
		if (properties.getRejoinDelay() != null) {
			declared.checkCoveredBy(properties.getRejoinDelay());
		}
		// a default one-node timeout also fits the annotated leases (never longer than
		// the
		// one validated above, so the configured leases still fit it)
		Duration nodeTimeout = NodeTimeouts.effective(properties, oneNode, null, declared.leases());
		QuorumLockEngine.Builder builder = QuorumLockEngine.builder()
			.redisUris(QuorumNodes.toRedisUris(nodes))
			.restartGuardFromDeclaredLeases()
			.declaredLeases(declared.leases())
			.freshMasterRunIds(properties.getFreshMasterRunIds());
		// quorumlock.lease counts when chosen; when only defaulted, it counts if an
		// annotated method (in the declared leases) or an instance relies on it
		if (leaseIsSet(environment)) {
			builder.declaredLeases(List.of(properties.getLease()));
		}
		SslBundle bundle = QuorumLockSsl.configuredBundle(properties, sslBundles.getIfAvailable());
		if (bundle != null) {
			builder.sslOptions(QuorumLockSsl.sslOptions(bundle));
		}
		return configurer.build(builder, nodeTimeout,
				QuorumLockStartupLog.quorumSource(connectionDetailTypes(beanFactory)));
	}

	/** Whether {@code quorumlock.lease} is set rather than defaulted. */
	static boolean leaseIsSet(Environment environment) {
		return Binder.get(environment).bind("quorumlock.lease", Bindable.of(String.class)).isBound();
	}

	/** Each {@link QuorumLockConnectionDetails} bean's name and class name, in order. */
	private static Map<String, String> connectionDetailTypes(ListableBeanFactory beanFactory) {
		Map<String, String> types = new LinkedHashMap<>();
		beanFactory.getBeansOfType(QuorumLockConnectionDetails.class)
			.forEach((name, details) -> types.put(name, details.getClass().getName()));
		return types;
	}

	/**
	 * The nodes of every {@link QuorumLockConnectionDetails} bean, without repeats, in
	 * place of {@code quorumlock.nodes} when there is any such bean.
	 */
	static List<NodeProperties> nodes(QuorumLockProperties properties,
			ObjectProvider<QuorumLockConnectionDetails> connectionDetails) {
		List<String> uris = connectionDetails.orderedStream()
			.flatMap((details) -> details.nodeUris().stream())
			.distinct()
			.toList();
		if (uris.isEmpty()) {
			return properties.getNodes();
		}
		return uris.stream().map(NodeProperties::new).toList();
	}

}
