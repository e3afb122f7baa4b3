package io.quorumlock.autoconfigure;

import java.util.List;

import io.lettuce.core.RedisURI;
import io.lettuce.core.StaticCredentialsProvider;
import io.lettuce.core.resource.ClientResources;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.autoconfigure.data.redis.RedisProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.lang.Nullable;
import org.springframework.util.StringUtils;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockListener;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * Single mode: the engine on the application's own {@code spring.data.redis} connection
 * (standalone, Sentinel or Cluster; host, port, database, TLS, username and password,
 * client name), sharing Boot's Lettuce {@link ClientResources} when there is one. On a
 * Redis Cluster ({@code spring.data.redis.cluster.nodes}) the whole cluster is the one
 * node: the configured nodes are the seeds of a Lettuce cluster connection, and each lock
 * is one key in one hash slot. Sync-replicas is refused there with a message.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(DistributedLockRegistry.class)
@Conditional(QuorumModeCondition.Single.class)
class SingleModeConfiguration {

	@Bean(destroyMethod = "close")
	QuorumLockEngine quorumLockEngine(QuorumLockProperties properties, ObjectProvider<LockListener> listeners,
			ObjectProvider<QuorumLockEngineCustomizer> customizers, @Nullable RedisConnectionDetails connection,
			ObjectProvider<RedisProperties> redisProperties, @Nullable ClientResources clientResources,
			ObjectProvider<SslBundles> sslBundles) {
		// ClientResources is a direct (nullable) parameter, not an ObjectProvider, so
		// that the
		// engine is registered as its dependent and closed before Boot shuts it down
		QuorumLockEngineConfigurer configurer = new QuorumLockEngineConfigurer(properties, listeners, customizers);
		configurer.validate();
		QuorumLockEngine.Builder builder = QuorumLockEngine.builder();
		if (connection != null && connection.getSentinel() == null && connection.getCluster() != null) {
			checkCluster(properties);
			builder.cluster(clusterUris(connection, redisProperties.getIfAvailable()));
		}
		else {
			builder.redisUris(List.of(redisUri(connection, redisProperties.getIfAvailable())));
		}
		if (clientResources != null) {
			builder.clientResources(clientResources);
		}
		SslBundle bundle = sslBundle(properties, connection, sslBundles.getIfAvailable());
		if (bundle != null) {
			builder.sslOptions(QuorumLockSsl.sslOptions(bundle));
		}
		return configurer.build(builder);
	}

	/**
	 * What single mode cannot do on a cluster, as property errors (the engine would
	 * refuse them too, less helpfully).
	 */
	static void checkCluster(QuorumLockProperties properties) {
		if (properties.getSyncReplicas() > 0) {
			throw new InvalidQuorumLockPropertyException("quorumlock.sync-replicas",
					Integer.toString(properties.getSyncReplicas()),
					"is not supported in single mode on a Redis Cluster (spring.data.redis.cluster is set): "
							+ "WAIT would not reach the master that took the lock; set it to 0");
		}
		String prefix = properties.getKeyPrefix();
		if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			throw new InvalidQuorumLockPropertyException("quorumlock.key-prefix", prefix,
					"must not contain '{' or '}' on a Redis Cluster: the lock key's own hash tag must decide its slot");
		}
	}

	/**
	 * The seed nodes of the application's Redis Cluster, each with its credentials, TLS
	 * and client name.
	 */
	static List<RedisURI> clusterUris(RedisConnectionDetails connection, RedisProperties properties) {
		List<RedisConnectionDetails.Node> nodes = connection.getCluster().getNodes();
		if (nodes == null || nodes.isEmpty()) {
			throw new InvalidQuorumLockPropertyException("spring.data.redis.cluster.nodes", "[]",
					"single mode on a Redis Cluster needs at least one seed node");
		}
		return nodes.stream()
			.map((node) -> withConnectionSettings(RedisURI.create(node.host(), node.port()), connection, properties))
			.toList();
	}

	static RedisURI redisUri(RedisConnectionDetails connection, RedisProperties properties) {
		if (connection == null) {
			throw new InvalidQuorumLockPropertyException("quorumlock.nodes", "[]",
					"single mode uses the application's spring.data.redis connection, but there is none "
							+ "(is spring-boot-starter-data-redis on the classpath?)");
		}
		RedisURI uri;
		if (connection.getSentinel() != null) {
			uri = sentinel(connection.getSentinel(), connection);
		}
		else if (connection.getCluster() != null) {
			throw new IllegalStateException("a Redis Cluster has no one URI: use clusterUris");
		}
		else {
			uri = standalone(connection.getStandalone());
		}
		return withConnectionSettings(uri, connection, properties);
	}

	private static RedisURI withConnectionSettings(RedisURI uri, RedisConnectionDetails connection,
			RedisProperties properties) {
		if (StringUtils.hasText(connection.getPassword())) {
			String username = StringUtils.hasText(connection.getUsername()) ? connection.getUsername() : null;
			uri.setCredentialsProvider(new StaticCredentialsProvider(username, connection.getPassword().toCharArray()));
		}
		if (properties != null) {
			if (isSsl(connection, properties)) {
				uri.setSsl(true);
			}
			if (StringUtils.hasText(properties.getClientName())) {
				uri.setClientName(properties.getClientName());
			}
		}
		return uri;
	}

	/**
	 * The bundle the connection trusts: {@code quorumlock.ssl.bundle} if set, else the
	 * one of {@code spring.data.redis}, else none (the JDK's default trust store).
	 */
	private static SslBundle sslBundle(QuorumLockProperties properties, RedisConnectionDetails connection,
			SslBundles bundles) {
		SslBundle configured = QuorumLockSsl.configuredBundle(properties, bundles);
		if (configured != null || connection == null) {
			return configured;
		}
		if (connection.getSentinel() != null) {
			return connection.getSentinel().getSslBundle();
		}
		return (connection.getStandalone() != null) ? connection.getStandalone().getSslBundle() : null;
	}

	private static RedisURI standalone(RedisConnectionDetails.Standalone standalone) {
		RedisURI uri = RedisURI.create(standalone.getHost(), standalone.getPort());
		uri.setDatabase(standalone.getDatabase());
		return uri;
	}

	private static RedisURI sentinel(RedisConnectionDetails.Sentinel sentinel, RedisConnectionDetails connection) {
		RedisURI.Builder builder = RedisURI.builder().withSentinelMasterId(sentinel.getMaster());
		for (RedisConnectionDetails.Node node : sentinel.getNodes()) {
			RedisURI.Builder one = RedisURI.Builder.redis(node.host(), node.port());
			if (StringUtils.hasText(sentinel.getPassword())) {
				one = StringUtils.hasText(sentinel.getUsername())
						? one.withAuthentication(sentinel.getUsername(), sentinel.getPassword())
						: one.withPassword(sentinel.getPassword().toCharArray());
			}
			builder.withSentinel(one.build());
		}
		RedisURI uri = builder.build();
		uri.setDatabase(sentinel.getDatabase());
		return uri;
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
