package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslManagerBundle;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StringUtils;

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
			ObjectProvider<EtcdLockRegistryCustomizer> customizers, ObjectProvider<SslBundles> sslBundles,
			ListableBeanFactory beanFactory) {
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
		SslBundle bundle = sslBundle(etcd, sslBundles.getIfAvailable());
		if (bundle != null) {
			SslManagerBundle managers = bundle.getManagers();
			builder.tls(managers.getTrustManagerFactory(),
					(bundle.getStores().getKeyStore() != null) ? managers.getKeyManagerFactory() : null);
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
	 * The bundle named by {@code quorumlock.etcd.ssl.bundle}, or null when it is not set.
	 * @throws InvalidQuorumLockPropertyException if no such bundle is defined, or an
	 * endpoint is not {@code https://}
	 */
	static SslBundle sslBundle(EtcdProperties etcd, SslBundles bundles) {
		String name = etcd.getSsl().getBundle();
		if (!StringUtils.hasText(name)) {
			return null;
		}
		for (String endpoint : etcd.getEndpoints()) {
			if (!endpoint.startsWith("https://")) {
				throw new InvalidQuorumLockPropertyException("quorumlock.etcd.ssl.bundle", name,
						"is set, but the etcd endpoint '" + endpoint
								+ "' is not https://: list every endpoint as https://host:port for TLS");
			}
		}
		if (bundles == null) {
			throw new InvalidQuorumLockPropertyException("quorumlock.etcd.ssl.bundle", name,
					"there are no SSL bundles in this application (SslAutoConfiguration is not active)");
		}
		try {
			return bundles.getBundle(name);
		}
		catch (NoSuchSslBundleException ex) {
			throw new InvalidQuorumLockPropertyException("quorumlock.etcd.ssl.bundle", name,
					"no SSL bundle of that name; define it under spring.ssl.bundle.pem." + name
							+ " or spring.ssl.bundle.jks." + name);
		}
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
