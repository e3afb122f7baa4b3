package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisURI;
import io.lettuce.core.StaticCredentialsProvider;
import io.lettuce.core.resource.ClientResources;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.core.env.Environment;
import org.springframework.lang.Nullable;
import org.springframework.util.StringUtils;

import io.quorumlock.LockListener;
import io.quorumlock.aop.DeclaredLeases;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * Single mode, independent of the Spring Boot line: how the application's
 * {@link RedisConnection} becomes the engine's nodes (one URI, a Sentinel URI, or the
 * seeds of a Cluster), each with its credentials, TLS and client name, and the engine
 * built on them.
 */
final class SingleModeNodes {

	private SingleModeNodes() {
	}

	/**
	 * The single-mode engine on the application's connection.
	 * @param connection the connection, or null when the application has none (an error
	 * naming the property)
	 * @param source where the connection comes from, for the start-up line
	 * @param beanFactory the bean factory whose annotated leases the default node timeout
	 * fits, or null
	 * @param environment the environment holding {@code spring.data.redis.timeout}, or
	 * null
	 */
	static QuorumLockEngine engine(QuorumLockProperties properties, ObjectProvider<LockListener> listeners,
			ObjectProvider<QuorumLockEngineCustomizer> customizers, @Nullable RedisConnection connection,
			@Nullable ClientResources clientResources, @Nullable SslBundles sslBundles, String source,
			@Nullable ListableBeanFactory beanFactory, @Nullable Environment environment) {
		QuorumLockEngineConfigurer configurer = new QuorumLockEngineConfigurer(properties, listeners, customizers);
		configurer.validate(NodeTimeouts.effective(properties, true, environment, List.of()));
		// a default node timeout also fits the annotated leases (never longer than the
		// one
		// validated above, so the configured leases still fit it)
		List<Duration> declared = (beanFactory != null)
				? DeclaredLeases.scan(beanFactory, (name) -> ConfiguredLockOptions.forName(properties, name)).leases()
				: List.of();
		Duration nodeTimeout = NodeTimeouts.effective(properties, true, environment, declared);
		QuorumLockEngine.Builder builder = QuorumLockEngine.builder();
		if (connection != null && connection.sentinel() == null && connection.cluster() != null) {
			checkCluster(properties);
			builder.cluster(clusterUris(connection));
		}
		else {
			builder.redisUris(List.of(redisUri(connection)));
		}
		if (clientResources != null) {
			builder.clientResources(clientResources);
		}
		SslBundle bundle = QuorumLockSsl.configuredBundle(properties, sslBundles);
		if (bundle == null && connection != null) {
			bundle = connection.sslBundle();
		}
		if (bundle != null) {
			builder.sslOptions(QuorumLockSsl.sslOptions(bundle));
		}
		return configurer.build(builder, nodeTimeout, source);
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
	static List<RedisURI> clusterUris(RedisConnection connection) {
		List<RedisConnection.Address> nodes = connection.cluster();
		if (nodes == null || nodes.isEmpty()) {
			throw new InvalidQuorumLockPropertyException("spring.data.redis.cluster.nodes", "[]",
					"single mode on a Redis Cluster needs at least one seed node");
		}
		return nodes.stream()
			.map((node) -> withConnectionSettings(RedisURI.create(node.host(), node.port()), connection))
			.toList();
	}

	/** The one URI of a standalone or Sentinel connection. */
	static RedisURI redisUri(@Nullable RedisConnection connection) {
		if (connection == null) {
			throw new InvalidQuorumLockPropertyException("quorumlock.nodes", "[]",
					"single mode uses the application's spring.data.redis connection, but there is none "
							+ "(is spring-boot-starter-data-redis on the classpath?)");
		}
		RedisURI uri;
		if (connection.sentinel() != null) {
			uri = sentinel(connection.sentinel());
		}
		else if (connection.cluster() != null) {
			throw new IllegalStateException("a Redis Cluster has no one URI: use clusterUris");
		}
		else {
			uri = RedisURI.create(connection.standalone().host(), connection.standalone().port());
			uri.setDatabase(connection.standalone().database());
		}
		return withConnectionSettings(uri, connection);
	}

	private static RedisURI withConnectionSettings(RedisURI uri, RedisConnection connection) {
		if (StringUtils.hasText(connection.password())) {
			String username = StringUtils.hasText(connection.username()) ? connection.username() : null;
			uri.setCredentialsProvider(new StaticCredentialsProvider(username, connection.password().toCharArray()));
		}
		if (connection.ssl()) {
			uri.setSsl(true);
		}
		if (StringUtils.hasText(connection.clientName())) {
			uri.setClientName(connection.clientName());
		}
		return uri;
	}

	private static RedisURI sentinel(RedisConnection.Sentinel sentinel) {
		RedisURI.Builder builder = RedisURI.builder().withSentinelMasterId(sentinel.master());
		for (RedisConnection.Address node : sentinel.nodes()) {
			RedisURI.Builder one = RedisURI.Builder.redis(node.host(), node.port());
			if (StringUtils.hasText(sentinel.password())) {
				one = StringUtils.hasText(sentinel.username())
						? one.withAuthentication(sentinel.username(), sentinel.password())
						: one.withPassword(sentinel.password().toCharArray());
			}
			builder.withSentinel(one.build());
		}
		RedisURI uri = builder.build();
		uri.setDatabase(sentinel.database());
		return uri;
	}

}
