package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.actuate.LockMetrics;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.RedisServers;

import static io.quorumlock.autoconfigure.ObservabilityContexts.METRICS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link QuorumLockMetricsAutoConfiguration} next to Boot's metrics auto-configuration,
 * one condition per test, on three real masters: the meters are read after real locks.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuorumLockMetricsAutoConfigurationIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final ApplicationContextRunner runner = ObservabilityContexts.runner(redis);

	private final String key = "secret-order-" + UUID.randomUUID();

	@Test
	void runWhenMeterRegistryPresentShouldRecordLockMeters() {
		this.runner.withConfiguration(METRICS).run((context) -> {
			assertThat(context).hasSingleBean(LockMetrics.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			try (Lease lease = context.getBean(DistributedLockRegistry.class).acquire(request().name("orders"))) {
				assertThat(meters.get("distributed.lock.active").gauge().value()).isOne();
			}
			assertThat(
					meters.get("distributed.lock.wait").tags("lock", "orders", "outcome", "acquired").timer().count())
				.isOne();
			assertThat(meters.get("distributed.lock.held").tag("lock", "orders").timer().count()).isOne();
			assertThat(meters.get("distributed.lock.active").gauge().value()).isZero();
			assertNoTagCarriesTheKey(meters);
		});
	}

	@Test
	void runWithoutMeterRegistryShouldNotRegisterMeters() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(QuorumLockEngine.class)
				.doesNotHaveBean(MeterRegistry.class)
				.doesNotHaveBean(LockMetrics.class);
		});
	}

	@Test
	void runWhenMetricsDisabledShouldNotRegisterMeters() {
		this.runner.withConfiguration(METRICS).withPropertyValues("quorumlock.metrics.enabled=false").run((context) -> {
			assertThat(context).hasSingleBean(MeterRegistry.class).doesNotHaveBean(LockMetrics.class);
			context.getBean(DistributedLockRegistry.class).acquire(request().name("orders")).release();
			assertThat(context.getBean(MeterRegistry.class).find("distributed.lock.wait").meters()).isEmpty();
			assertThat(context.getBean(MeterRegistry.class).find("distributed.lock.active").meters()).isEmpty();
		});
	}

	@Test
	void runWhenUserDefinesLockMetricsShouldFeedThatOne() {
		SimpleMeterRegistry own = new SimpleMeterRegistry();
		this.runner.withConfiguration(METRICS)
			.withBean("ownLockMetrics", LockMetrics.class, () -> new LockMetrics(own))
			.run((context) -> {
				assertThat(context).hasSingleBean(LockMetrics.class).hasBean("ownLockMetrics");
				context.getBean(DistributedLockRegistry.class).acquire(request()).release();
				assertThat(own.get("distributed.lock.wait").tag("outcome", "acquired").timer().count()).isOne();
			});
	}

	private void assertNoTagCarriesTheKey(MeterRegistry meters) {
		for (Meter meter : meters.getMeters()) {
			for (Tag tag : meter.getId().getTags()) {
				assertThat(tag.getValue()).as(meter.getId().toString()).doesNotContain(this.key);
			}
		}
	}

	/**
	 * A request that waits for contention. These tests are about wiring, not timing, so
	 * the runners also give each node a generous 1 s to answer: a busy machine must not
	 * turn a grant into a quorum failure, which the engine reports at once.
	 */
	private LockRequest request() {
		return LockRequest.of(this.key).waitAtMost(Duration.ofSeconds(10));
	}

}
