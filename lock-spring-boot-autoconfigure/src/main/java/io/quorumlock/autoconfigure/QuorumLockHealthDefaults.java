package io.quorumlock.autoconfigure;

import java.util.Map;

import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Honest health in quorum and etcd mode: the starter brings Spring Data Redis, whose
 * health indicator pings {@code spring.data.redis} ({@code localhost:6379} by default)
 * although the locks live on {@code quorumlock.nodes} or
 * {@code quorumlock.etcd.endpoints}. When either is set and the application sets no
 * {@code spring.data.redis.*} property, this turns that indicator off by default
 * ({@code management.health.redis.enabled=false}, at the lowest precedence), so the
 * application's health does not go DOWN for a connection nobody uses. Setting
 * {@code management.health.redis.enabled} or any {@code spring.data.redis.*} property
 * leaves Boot's indicator as it is; single mode never changes it.
 */
public class QuorumLockHealthDefaults implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	/** Name of the property source added. */
	public static final String SOURCE_NAME = "quorumlockHealthDefaults";

	private static final ConfigurationPropertyName SPRING_DATA_REDIS = ConfigurationPropertyName
		.of("spring.data.redis");

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		ConfigurableEnvironment environment = context.getEnvironment();
		if (!environment.getProperty("quorumlock.enabled", Boolean.class, true)
				|| environment.containsProperty("management.health.redis.enabled")
				|| !(QuorumModeCondition.hasNodes(environment) || QuorumModeCondition.hasEtcdEndpoints(environment))
				|| configuresSpringDataRedis(environment) || environment.getPropertySources().contains(SOURCE_NAME)) {
			return;
		}
		environment.getPropertySources()
			.addLast(new MapPropertySource(SOURCE_NAME, Map.of("management.health.redis.enabled", "false")));
	}

	private static boolean configuresSpringDataRedis(ConfigurableEnvironment environment) {
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source instanceof IterableConfigurationPropertySource
					&& source.containsDescendantOf(SPRING_DATA_REDIS) == ConfigurationPropertyState.PRESENT) {
				return true;
			}
		}
		return false;
	}

}
