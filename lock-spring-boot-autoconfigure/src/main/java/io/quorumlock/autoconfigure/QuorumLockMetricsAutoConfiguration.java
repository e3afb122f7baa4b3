package io.quorumlock.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.quorumlock.RegistryStatus;
import io.quorumlock.actuate.LockMetrics;
import io.quorumlock.actuate.NodeMetrics;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the lock meters: a {@link LockMetrics} bean on the application's
 * {@link MeterRegistry}, and the per-node meters of {@link NodeMetrics} (state and
 * answers, read from the registry's status when scraped), for a registry with a status
 * view (the Redis engine or the etcd registry). It is a
 * {@link io.quorumlock.LockListener}, so the auto-configured registry adds it with every
 * other listener bean when it is built; both call listeners guarded (one that throws is
 * logged and skipped), so metrics can never stop a grant or a release. A registry the
 * application builds itself does not see it: pass the bean to its builder's
 * {@code listener}.
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
@ConditionalOnBean({ MeterRegistry.class, RegistryStatus.class })
public class QuorumLockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockMetrics lockMetrics(MeterRegistry meterRegistry) {
		return new LockMetrics(meterRegistry);
	}

	@Bean
	@ConditionalOnMissingBean
	NodeMetrics quorumLockNodeMetrics(MeterRegistry meterRegistry, RegistryStatus status) {
		return new NodeMetrics(meterRegistry, status);
	}

}
