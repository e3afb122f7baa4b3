package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.lang.Nullable;

import io.quorumlock.redis.QuorumLockEngine;

/**
 * The node timeout the engine is built with: {@code quorumlock.node-timeout} when it is
 * set; otherwise a default that fits the mode.
 * <p>
 * With several masters, 50 ms: a round decides at the quorum's answers, so the timeout
 * only bounds what a dead master costs. With one node there is no other master to move on
 * to, so a short deadline only turns a slow answer (a throttled pod, a GC pause) into
 * another round: the default is a client command timeout,
 * {@code spring.data.redis.timeout} when single mode runs on the application's connection
 * and it is set, else one second. Either way a default stays at most a quarter of the
 * shortest lease declared (the global one, every instance's and every
 * {@code @DistributedLock} method's found before the registry is built), never below what
 * the several-masters default would allow for that lease, so that no declared lease is
 * refused for a timeout the user never chose.
 */
final class NodeTimeouts {

	/** Single mode's default when the application's connection sets none. */
	static final Duration ONE_NODE_DEFAULT = Duration.ofSeconds(1);

	/** Spring Boot's Redis command timeout, on every Boot line. */
	static final String SPRING_DATA_REDIS_TIMEOUT = "spring.data.redis.timeout";

	private static final Duration ONE_MILLI = Duration.ofMillis(1);

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
		Duration quorumDefault = QuorumLockEngine.Builder.DEFAULT_NODE_TIMEOUT;
		if (!oneNode) {
			return quorumDefault;
		}
		Duration base = ONE_NODE_DEFAULT;
		Duration client = (environment != null) ? clientTimeout(environment) : null;
		if (client != null && !client.isNegative() && !client.isZero()) {
			base = client;
		}
		Duration shortest = shortestLease(properties, declaredLeases);
		if (shortest == null) {
			return base;
		}
		// a quarter of the shortest lease leaves a renewal round room in each third
		Duration cap = shortest.dividedBy(4);
		// never below the several-masters default where that default would fit the lease
		Duration floor = min(quorumDefault, shortest.dividedBy(3).minus(ONE_MILLI));
		Duration chosen = max(min(base, cap), floor);
		return max(chosen, ONE_MILLI);
	}

	/** Whether the node timeout is single mode's derived default rather than set. */
	static boolean isDefaulted(QuorumLockProperties properties) {
		return properties.getNodeTimeout() == null;
	}

	/**
	 * The node timeout the start-up checks of annotations and jobs use: the engine's,
	 * else (another registry) the property, else the several-masters default.
	 * @param registry the application's registry, or null
	 */
	static Duration inForce(@Nullable Object registry, QuorumLockProperties properties) {
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

	@Nullable
	private static Duration shortestLease(QuorumLockProperties properties, List<Duration> declaredLeases) {
		List<Duration> leases = new ArrayList<>(declaredLeases);
		if (properties.getLease() != null) {
			leases.add(properties.getLease());
		}
		properties.getInstances().values().forEach((instance) -> {
			if (instance.getLease() != null) {
				leases.add(instance.getLease());
			}
		});
		return leases.stream()
			.filter((lease) -> !lease.isNegative() && !lease.isZero())
			.min(Duration::compareTo)
			.orElse(null);
	}

	private static Duration min(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
	}

	private static Duration max(Duration a, Duration b) {
		return (a.compareTo(b) >= 0) ? a : b;
	}

}
