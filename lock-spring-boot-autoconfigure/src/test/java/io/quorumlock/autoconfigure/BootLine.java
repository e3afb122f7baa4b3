package io.quorumlock.autoconfigure;

import org.springframework.util.ClassUtils;

/**
 * The Spring Boot line these tests run on, and Boot's auto-configuration classes named
 * for it: the tests of this module run on Boot 3.5 here and again on Boot 4.x in
 * {@code lock-spring-boot41-tests}, from the same compiled classes, so every Boot class
 * whose name moved in 4.0 is looked up by name.
 */
public final class BootLine {

	/** Whether the classpath is Spring Boot 4. */
	public static final boolean BOOT4 = ClassUtils
		.isPresent("org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration", null);

	/** Boot's Redis auto-configuration. */
	public static final Class<?> REDIS = type(
			"org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
			"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration");

	/** Boot's metrics auto-configuration. */
	public static final Class<?> METRICS = type(
			"org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
			"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration");

	/** Boot's simple meter registry export. */
	public static final Class<?> SIMPLE_METRICS_EXPORT = type(
			"org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
			"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration");

	/** Boot's composite meter registry. */
	public static final Class<?> COMPOSITE_METER_REGISTRY = type(
			"org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
			"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration");

	/** Boot's observation auto-configuration. */
	public static final Class<?> OBSERVATION = type(
			"org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
			"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration");

	/** Boot's health contributor auto-configuration. */
	public static final Class<?> HEALTH_CONTRIBUTORS = type(
			"org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration",
			"org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration");

	/** Boot's health endpoint auto-configuration. */
	public static final Class<?> HEALTH_ENDPOINT = type(
			"org.springframework.boot.actuate.autoconfigure.health.HealthEndpointAutoConfiguration",
			"org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration");

	/** Boot's Spring Data Redis health contributor auto-configuration. */
	public static final Class<?> REDIS_HEALTH = type(
			"org.springframework.boot.actuate.autoconfigure.data.redis.RedisHealthContributorAutoConfiguration",
			"org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration");

	private BootLine() {
	}

	private static Class<?> type(String boot3, String boot4) {
		return ClassUtils.resolveClassName(BOOT4 ? boot4 : boot3, BootLine.class.getClassLoader());
	}

}
