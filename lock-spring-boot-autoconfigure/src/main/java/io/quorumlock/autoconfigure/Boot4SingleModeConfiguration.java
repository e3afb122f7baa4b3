package io.quorumlock.autoconfigure;

import java.util.List;

import io.lettuce.core.resource.ClientResources;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.lang.Nullable;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockListener;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * Single mode on Spring Boot 4, the twin of {@link SingleModeConfiguration}: a thin
 * adapter from Boot 4's {@code spring-boot-data-redis}
 * ({@link DataRedisConnectionDetails}, {@link DataRedisProperties}) to the line-neutral
 * {@link RedisConnection}. Two Boot 4 differences:
 * <ul>
 * <li>the TLS bundle sits on the top-level connection details, and
 * {@code spring.data.redis.ssl.enabled=true} without a bundle means the JDK's default
 * trust ({@code SslBundle.systemDefault()});</li>
 * <li>a static master/replica set ({@code spring.data.redis.masterreplica.nodes}) is
 * refused with a property error: a lock must be written to the master, and a static list
 * does not say which node that is (Boot's own {@code getStandalone()} would silently
 * point at {@code localhost:6379}).</li>
 * </ul>
 * Compiled against the Boot 4.0 module jar, loaded only when its class is present.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = Boot4SingleModeConfiguration.BOOT4_CONNECTION_DETAILS)
@ConditionalOnMissingBean(DistributedLockRegistry.class)
@Conditional(QuorumModeCondition.Single.class)
class Boot4SingleModeConfiguration {

	static final String BOOT4_CONNECTION_DETAILS = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

	@Bean(destroyMethod = "close")
	QuorumLockEngine quorumLockEngine(QuorumLockProperties properties, ObjectProvider<LockListener> listeners,
			ObjectProvider<QuorumLockEngineCustomizer> customizers, @Nullable DataRedisConnectionDetails connection,
			ObjectProvider<DataRedisProperties> redisProperties, @Nullable ClientResources clientResources,
			ObjectProvider<SslBundles> sslBundles, ListableBeanFactory beanFactory, Environment environment) {
		// ClientResources is a direct (nullable) parameter, not
		// an ObjectProvider, so that the engine is registered
		// as its dependent and closed before Boot shuts it down
		return SingleModeNodes.engine(properties, listeners, customizers,
				connection(connection, redisProperties.getIfAvailable()), clientResources, sslBundles.getIfAvailable(),
				QuorumLockStartupLog.singleSource(connection), beanFactory, environment);
	}

	/** Boot 4's connection details as the line-neutral connection, or null. */
	static RedisConnection connection(@Nullable DataRedisConnectionDetails connection,
			@Nullable DataRedisProperties properties) {
		if (connection == null) {
			return null;
		}
		RedisConnection.Standalone standalone = null;
		RedisConnection.Sentinel sentinel = null;
		List<RedisConnection.Address> cluster = null;
		if (connection.getSentinel() != null) {
			DataRedisConnectionDetails.Sentinel from = connection.getSentinel();
			sentinel = new RedisConnection.Sentinel(from.getMaster(), nodes(from.getNodes()), from.getUsername(),
					from.getPassword(), from.getDatabase());
		}
		else if (connection.getCluster() != null) {
			cluster = nodes(connection.getCluster().getNodes());
		}
		else if (connection.getMasterReplica() != null) {
			throw new InvalidQuorumLockPropertyException("spring.data.redis.masterreplica.nodes",
					String.valueOf(describe(connection.getMasterReplica().getNodes())),
					"is not supported in single mode: a lock must be written to the master, and a static "
							+ "master/replica list does not say which node that is; point spring.data.redis.host "
							+ "and port at the master, use Sentinel (spring.data.redis.sentinel), or list the "
							+ "masters in quorumlock.nodes");
		}
		else {
			DataRedisConnectionDetails.Standalone from = connection.getStandalone();
			standalone = new RedisConnection.Standalone(from.getHost(), from.getPort(), from.getDatabase());
		}
		boolean ssl = connection.getSslBundle() != null
				|| (properties != null && properties.getUrl() != null && properties.getUrl().startsWith("rediss:"));
		String clientName = (properties != null) ? properties.getClientName() : null;
		return new RedisConnection(standalone, sentinel, cluster, connection.getUsername(), connection.getPassword(),
				ssl, connection.getSslBundle(), clientName);
	}

	private static List<String> describe(@Nullable List<DataRedisConnectionDetails.Node> nodes) {
		return nodes(nodes).stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

	private static List<RedisConnection.Address> nodes(@Nullable List<DataRedisConnectionDetails.Node> nodes) {
		return (nodes != null)
				? nodes.stream().map((node) -> new RedisConnection.Address(node.host(), node.port())).toList()
				: List.of();
	}

}
