package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockListener;
import io.quorumlock.actuate.NodeStateLog;
import io.quorumlock.etcd.EtcdLockRegistry;
import io.quorumlock.redis.OnLeaseLost;

/**
 * Etcd mode: an {@link EtcdLockRegistry} on the cluster listed in
 * {@code quorumlock.etcd.endpoints}, when {@code io.quorumlock:lock-etcd} is on the class
 * path. It takes {@code quorumlock.key-prefix}, the lease defaults, the instances, the
 * clock drift factor and on-lease-lost as Redis mode does, the etcd credentials and
 * request timeout, every {@link LockListener} bean and then every
 * {@link EtcdLockRegistryCustomizer}. Redis masters listed beside it
 * ({@code quorumlock.nodes} or a {@link QuorumLockConnectionDetails} bean) stop the
 * start-up: the locks live on one backend. An unreachable cluster does not stop it, as an
 * unreachable Redis master does not: it is logged and shows in health.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = EtcdModeConfiguration.ETCD_REGISTRY)
@ConditionalOnMissingBean(DistributedLockRegistry.class)
@Conditional(QuorumModeCondition.Etcd.class)
class EtcdModeConfiguration {

	static final String ETCD_REGISTRY = "io.quorumlock.etcd.EtcdLockRegistry";

	@Bean(destroyMethod = "close")
	EtcdLockRegistry quorumLockEtcdRegistry(QuorumLockProperties properties, ObjectProvider<LockListener> listeners,
			ObjectProvider<EtcdLockRegistryCustomizer> customizers, ListableBeanFactory beanFactory) {
		EtcdProperties etcd = properties.getEtcd();
		checkOneBackend(properties, beanFactory.getBeanNamesForType(QuorumLockConnectionDetails.class).length > 0);
		QuorumLockPropertiesValidator.validateEtcd(properties);
		EtcdLockRegistry.Builder builder = EtcdLockRegistry.builder();
		List<String> endpoints = etcd.getEndpoints();
		for (int i = 0; i < endpoints.size(); i++) {
			try {
				builder.endpoints(endpoints.get(i));
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidQuorumLockPropertyException("quorumlock.etcd.endpoints[" + i + "]", endpoints.get(i),
						ex.getMessage());
			}
		}
		if (etcd.getUsername() != null) {
			builder.credentials(etcd.getUsername(), etcd.getPassword());
		}
		builder.keyPrefix(properties.getKeyPrefix())
			.defaults(ConfiguredLockOptions.global(properties))
			.requestTimeout(etcd.getRequestTimeout())
			.clockDriftFactor(properties.getClockDriftFactor())
			.throwOnLeaseLost(properties.getOnLeaseLost() == OnLeaseLost.THROW);
		properties.getInstances()
			.forEach((name, instance) -> builder.instance(name, ConfiguredLockOptions.instance(instance)));
		listeners.orderedStream().forEach(builder::listener);
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		EtcdLockRegistry registry = builder.build();
		QuorumLockStartupLog.logEtcd(registry, properties);
		return registry;
	}

	@Bean(initMethod = "start", destroyMethod = "close")
	@ConditionalOnMissingBean
	NodeStateLog quorumLockNodeStateLog(EtcdLockRegistry registry) {
		return new NodeStateLog(registry, Duration.ZERO);
	}

	/**
	 * The locks live either on Redis or on etcd.
	 * @throws InvalidQuorumLockPropertyException if Redis masters are listed too
	 */
	static void checkOneBackend(QuorumLockProperties properties, boolean connectionDetails) {
		if (properties.getNodes().isEmpty() && !connectionDetails) {
			return;
		}
		String redis = properties.getNodes().isEmpty()
				? "a QuorumLockConnectionDetails bean (such as Redis containers with @ServiceConnection(name = \"quorumlock\"))"
				: "quorumlock.nodes (" + properties.getNodes().size() + " Redis masters)";
		throw new InvalidQuorumLockPropertyException("quorumlock.etcd.endpoints", String.join(",", properties.getEtcd()
			.getEndpoints()), "cannot be combined with " + redis
					+ ": the locks live either on etcd or on Redis, and both are set. Remove quorumlock.etcd.endpoints "
					+ "to lock on Redis, or quorumlock.nodes to lock on etcd");
	}

}
