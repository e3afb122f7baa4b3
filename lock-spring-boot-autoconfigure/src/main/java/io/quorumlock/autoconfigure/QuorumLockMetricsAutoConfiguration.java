package io.quorumlock.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.quorumlock.actuate.LockMetrics;
import io.quorumlock.actuate.NodeMetrics;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the lock meters: a {@link LockMetrics} bean on the application's
 * {@link MeterRegistry}, and the per-master meters of {@link NodeMetrics} (state and
 * answers, read from the engine's status when scraped). It is a
 * {@link io.quorumlock.LockListener}, so the auto-configured engine adds it with every
 * other listener bean when it is built; the engine calls listeners guarded (one that
 * throws is logged and skipped), so metrics can never stop a grant or a release. An
 * engine the application builds itself does not see it: pass the bean to
 * {@code QuorumLockEngine.Builder#listener}.
 * <p>
 * Runs after Boot's metrics auto-configuration (named for both lines: Boot 3's
 * {@code spring-boot-actuator-autoconfigure}, Boot 4's
 * {@code spring-boot-micrometer-metrics}), so that the meter registries are known, and
 * only when there is one. {@code quorumlock.metrics.enabled=false} turns it off.
 */
@AutoConfiguration(after = QuorumLockAutoConfiguration.class,
		afterName = { "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
				"org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "quorumlock.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "quorumlock.metrics.enabled", matchIfMissing = true)
@ConditionalOnBean({ MeterRegistry.class, QuorumLockEngine.class })
public class QuorumLockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockMetrics lockMetrics(MeterRegistry meterRegistry) {
		return new LockMetrics(meterRegistry);
	}

	@Bean
	@ConditionalOnMissingBean
	NodeMetrics quorumLockNodeMetrics(MeterRegistry meterRegistry, QuorumLockEngine engine) {
		return new NodeMetrics(meterRegistry, engine);
	}

}
