package io.quorumlock.autoconfigure;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.quorumlock.testing.RedisServers;

/**
 * What the observability integration tests share: quorumlock's auto-configurations with
 * all its observability ones, Boot's metrics and actuator auto-configurations (named
 * through {@link BootLine}, so the same compiled class serves Boot 3.5 and 4.x), and a
 * runner with both on a test's real masters.
 */
final class ObservabilityContexts {

	/** Boot's Redis, quorumlock and every quorumlock observability auto-configuration. */
	static final AutoConfigurations QUORUMLOCK = AutoConfigurations.of(BootLine.REDIS,
			QuorumLockAutoConfiguration.class, QuorumLockMetricsAutoConfiguration.class,
			QuorumLockObservationAutoConfiguration.class, LocksEndpointAutoConfiguration.class,
			DistributedLockHealthContributorAutoConfiguration.class);

	/** Boot's metrics, exported to a simple meter registry. */
	static final AutoConfigurations METRICS = AutoConfigurations.of(BootLine.METRICS, BootLine.SIMPLE_METRICS_EXPORT,
			BootLine.COMPOSITE_METER_REGISTRY);

	/** Boot's endpoint and health auto-configurations. */
	static final AutoConfigurations ACTUATOR = AutoConfigurations.of(EndpointAutoConfiguration.class,
			BootLine.HEALTH_CONTRIBUTORS, BootLine.HEALTH_ENDPOINT);

	private ObservabilityContexts() {
	}

	/**
	 * {@link #QUORUMLOCK} and {@link #ACTUATOR} in quorum mode on the given masters, with
	 * the {@link #properties(RedisServers) properties} below.
	 */
	static ApplicationContextRunner runner(RedisServers redis) {
		return new ApplicationContextRunner().withConfiguration(QUORUMLOCK)
			.withConfiguration(ACTUATOR)
			.withPropertyValues(properties(redis));
	}

	/**
	 * Quorum mode on the given masters, no restart guard, and a generous 1 s for each
	 * node to answer: these tests are about wiring, not timing, and a busy machine must
	 * not turn a grant into a quorum failure.
	 */
	static String[] properties(RedisServers redis) {
		return new String[] { "quorumlock.rejoin-delay=0s", "quorumlock.node-timeout=1s",
				"quorumlock.nodes=" + String.join(",", redis.uris()) };
	}

}
