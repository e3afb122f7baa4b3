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
 * (standalone or Sentinel; host, port, database, TLS, username and password, client
 * name), sharing Boot's Lettuce {@link ClientResources} when there is one. Cluster is
 * refused with a message: the engine does not speak the cluster protocol, so the masters
 * must be listed in {@code quorumlock.nodes}.
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
		RedisURI uri = redisUri(connection, redisProperties.getIfAvailable());
		QuorumLockEngine.Builder builder = QuorumLockEngine.builder().redisUris(List.of(uri));
		if (clientResources != null) {
			builder.clientResources(clientResources);
		}
		SslBundle bundle = sslBundle(properties, connection, sslBundles.getIfAvailable());
		if (bundle != null) {
			builder.sslOptions(QuorumLockSsl.sslOptions(bundle));
		}
		return configurer.build(builder);
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
			throw new InvalidQuorumLockPropertyException("quorumlock.nodes", "[]",
					"single mode cannot run on a Redis Cluster (spring.data.redis.cluster is set): "
							+ "list the cluster's masters in quorumlock.nodes to lock on them as a quorum");
		}
		else {
			uri = standalone(connection.getStandalone());
		}
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
		return properties.getUrl() != null && properties.getUrl().startsWith("rediss:");
	}

}
