package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.lang.Nullable;

import io.quorumlock.LockRules;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * The node timeout the engine is built with: {@code quorumlock.node-timeout} when it is
 * set; otherwise {@link LockRules#defaultNodeTimeout the mode's default}, which with one
 * node follows {@code spring.data.redis.timeout} when single mode runs on the
 * application's connection and sets it, and fits every lease declared (the global one,
 * every instance's and every {@code @DistributedLock} method's found before the registry
 * is built).
 */
final class NodeTimeouts {

	/** Spring Boot's Redis command timeout, on every Boot line. */
	static final String SPRING_DATA_REDIS_TIMEOUT = "spring.data.redis.timeout";

	private NodeTimeouts() {
	}

	/**
	 * The node timeout to build the engine with.
	 * @param properties the properties
	 * @param oneNode whether the engine has a single node (single mode, or one master
	 * listed)
	 * @param environment the environment to read {@code spring.data.redis.timeout} from,
	 * or null when the node is not the application's connection
	 * @param declaredLeases the effective lease of every annotated method found
	 * @return the node timeout
	 */
	static Duration effective(QuorumLockProperties properties, boolean oneNode, @Nullable Environment environment,
			List<Duration> declaredLeases) {
		if (properties.getNodeTimeout() != null) {
			return properties.getNodeTimeout();
		}
		List<Duration> leases = new ArrayList<>(declaredLeases);
		leases.add(properties.getLease());
		properties.getInstances().values().forEach((instance) -> leases.add(instance.getLease()));
		Duration client = (environment != null) ? clientTimeout(environment) : null;
		return LockRules.defaultNodeTimeout(oneNode, client, leases);
	}

	/** Whether the node timeout is single mode's derived default rather than set. */
	static boolean isDefaulted(QuorumLockProperties properties) {
		return properties.getNodeTimeout() == null;
	}

	/**
	 * The node timeout the start-up checks of annotations and jobs use: the etcd request
	 * timeout in etcd mode, else the engine's, else (another registry) the property, else
	 * the several-masters default.
	 * @param registry the application's registry, or null
	 */
	static Duration inForce(@Nullable Object registry, QuorumLockProperties properties) {
		if (!properties.getEtcd().getEndpoints().isEmpty()) {
			return properties.getEtcd().getRequestTimeout();
		}
		if (registry instanceof QuorumLockEngine engine) {
			return engine.nodeTimeout();
		}
		return (properties.getNodeTimeout() != null) ? properties.getNodeTimeout()
				: QuorumLockEngine.Builder.DEFAULT_NODE_TIMEOUT;
	}

	@Nullable
	private static Duration clientTimeout(Environment environment) {
		try {
			return Binder.get(environment).bind(SPRING_DATA_REDIS_TIMEOUT, Bindable.of(Duration.class)).orElse(null);
		}
		catch (RuntimeException ex) {
			return null; // a malformed value is Spring Boot's to report
		}
	}

}
