package io.quorumlock.autoconfigure;

import java.util.List;

import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.autoconfigure.data.redis.RedisProperties;
import org.springframework.boot.ssl.SslBundle;
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
 * Single mode on Spring Boot 3: the engine on the application's own
 * {@code spring.data.redis} connection (standalone, Sentinel or Cluster; host, port,
 * database, TLS, username and password, client name), sharing Boot's Lettuce
 * {@link ClientResources} when there is one. On a Redis Cluster
 * ({@code spring.data.redis.cluster.nodes}) the whole cluster is the one node: the
 * configured nodes are the seeds of a Lettuce cluster connection, and each lock is one
 * key in one hash slot. Sync-replicas is refused there with a message.
 * <p>
 * A thin adapter from Boot 3's {@link RedisConnectionDetails} to the line-neutral
 * {@link RedisConnection}; {@link SingleModeNodes} does the rest.
 * {@link Boot4SingleModeConfiguration} is its twin on Boot 4.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = SingleModeConfiguration.BOOT3_CONNECTION_DETAILS)
@ConditionalOnMissingBean(DistributedLockRegistry.class)
@Conditional(QuorumModeCondition.Single.class)
class SingleModeConfiguration {

	static final String BOOT3_CONNECTION_DETAILS = "org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails";

	@Bean(destroyMethod = "close")
	QuorumLockEngine quorumLockEngine(QuorumLockProperties properties, ObjectProvider<LockListener> listeners,
			ObjectProvider<QuorumLockEngineCustomizer> customizers, @Nullable RedisConnectionDetails connection,
			ObjectProvider<RedisProperties> redisProperties, @Nullable ClientResources clientResources,
			ObjectProvider<SslBundles> sslBundles, ListableBeanFactory beanFactory, Environment environment) {
		// ClientResources is a direct (nullable) parameter, not
		// an ObjectProvider, so that the engine is registered
		// as its dependent and closed before Boot shuts it down
		return SingleModeNodes.engine(properties, listeners, customizers,
				connection(connection, redisProperties.getIfAvailable()), clientResources, sslBundles.getIfAvailable(),
				QuorumLockStartupLog.singleSource(connection), beanFactory, environment);
	}

	static List<RedisURI> clusterUris(RedisConnectionDetails connection, @Nullable RedisProperties properties) {
		return SingleModeNodes.clusterUris(connection(connection, properties));
	}

	static RedisURI redisUri(@Nullable RedisConnectionDetails connection, @Nullable RedisProperties properties) {
		return SingleModeNodes.redisUri(connection(connection, properties));
	}

	/** Boot 3's connection details as the line-neutral connection, or null. */
	static RedisConnection connection(@Nullable RedisConnectionDetails connection,
			@Nullable RedisProperties properties) {
		if (connection == null) {
			return null;
		}
		RedisConnection.Standalone standalone = null;
		RedisConnection.Sentinel sentinel = null;
		List<RedisConnection.Address> cluster = null;
		SslBundle bundle = null;
		if (connection.getSentinel() != null) {
			RedisConnectionDetails.Sentinel from = connection.getSentinel();
			sentinel = new RedisConnection.Sentinel(from.getMaster(), nodes(from.getNodes()), from.getUsername(),
					from.getPassword(), from.getDatabase());
			bundle = from.getSslBundle();
		}
		else if (connection.getCluster() != null) {
			cluster = nodes(connection.getCluster().getNodes());
		}
		else {
			RedisConnectionDetails.Standalone from = connection.getStandalone();
			standalone = new RedisConnection.Standalone(from.getHost(), from.getPort(), from.getDatabase());
		}
		if (sentinel == null && connection.getStandalone() != null) {
			bundle = connection.getStandalone().getSslBundle();
		}
		boolean ssl = properties != null && isSsl(connection, properties);
		String clientName = (properties != null) ? properties.getClientName() : null;
		return new RedisConnection(standalone, sentinel, cluster, connection.getUsername(), connection.getPassword(),
				ssl, bundle, clientName);
	}

	private static List<RedisConnection.Address> nodes(@Nullable List<RedisConnectionDetails.Node> nodes) {
		return (nodes != null)
				? nodes.stream().map((node) -> new RedisConnection.Address(node.host(), node.port())).toList()
				: List.of();
	}

	private static boolean isSsl(RedisConnectionDetails connection, RedisProperties properties) {
		if (properties.getSsl().isEnabled()) {
			return true;
		}
		if (connection.getStandalone() != null && connection.getStandalone().getSslBundle() != null) {
			return true;
		}
		if (connection.getSentinel() != null && connection.getSentinel().getSslBundle() != null) {
			return true;
		}
		if (connection.getCluster() != null && connection.getCluster().getSslBundle() != null) {
			return true;
		}
		return properties.getUrl() != null && properties.getUrl().startsWith("rediss:");
	}

}
