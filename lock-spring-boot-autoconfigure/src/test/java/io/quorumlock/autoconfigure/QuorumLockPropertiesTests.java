package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.convert.ApplicationConversionService;

import io.quorumlock.LockOptions;
import io.quorumlock.aop.DistributedLockAdvisor;
import io.quorumlock.redis.OnLeaseLost;
import io.quorumlock.redis.QuorumLockEngine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link QuorumLockProperties}: defaults agree with the engine's, and both forms of
 * {@code nodes} and {@code retry-delay} bind.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class QuorumLockPropertiesTests {

	@Test
	void defaultsAreConsistentWithTheEngine() {
		QuorumLockProperties properties = new QuorumLockProperties();
		assertThat(properties.getKeyPrefix()).isEqualTo(QuorumLockEngine.Builder.DEFAULT_KEY_PREFIX);
		assertThat(properties.getMaxKeyLength()).isEqualTo(QuorumLockEngine.Builder.DEFAULT_MAX_KEY_LENGTH);
		assertThat(properties.getLease()).isEqualTo(QuorumLockEngine.Builder.DEFAULT_LEASE);
		// unset: the engine is built with the mode's default (NodeTimeoutDefaultsTests)
		assertThat(properties.getNodeTimeout()).isNull();
		assertThat(properties.getClockDriftFactor()).isEqualTo(QuorumLockEngine.Builder.DEFAULT_CLOCK_DRIFT_FACTOR);
		assertThat(properties.getRetryDelay().getMin()).isEqualTo(QuorumLockEngine.Builder.DEFAULT_RETRY_MIN);
		assertThat(properties.getRetryDelay().getMax()).isEqualTo(QuorumLockEngine.Builder.DEFAULT_RETRY_MAX);
		assertThat(properties.getFencing().getCounterTtl())
			.isEqualTo(QuorumLockEngine.Builder.DEFAULT_FENCING_COUNTER_TTL);
		assertThat(properties.getOnLeaseLost()).isEqualTo(OnLeaseLost.THROW);
		assertThat(properties.getRejoinDelay()).isNull();
		assertThat(properties.getHoldAtLeast()).isZero();
		assertThat(properties.getSyncReplicas()).isZero();
		assertThat(properties.getAspectOrder()).isEqualTo(DistributedLockAdvisor.DEFAULT_ORDER);
		assertThat(ConfiguredLockOptions.global(properties))
			.isEqualTo(LockOptions.none().lease(Duration.ofSeconds(30)).waitAtMost(Duration.ZERO).renew(true));
	}

	@Test
	void nodesBindFromStringsAndObjects() {
		QuorumLockProperties properties = bind(
				Map.of("quorumlock.nodes[0]", "redis://a:6379", "quorumlock.nodes[1].uri", "rediss://b:6380/1",
						"quorumlock.nodes[1].username", "app", "quorumlock.nodes[1].password", "s3cret"));
		assertThat(properties.getNodes()).extracting(NodeProperties::getUri)
			.containsExactly("redis://a:6379", "rediss://b:6380/1");
		assertThat(properties.getNodes().get(1).getPassword()).isEqualTo("s3cret");
		assertThat(properties.getNodes().get(1))
			.hasToString("Node[uri=rediss://b:6380/1, username=app, password=******]");
	}

	@Test
	void commaSeparatedNodesBind() {
		QuorumLockProperties properties = bind(Map.of("quorumlock.nodes", "redis://a:6379, redis://b:6379"));
		assertThat(properties.getNodes()).extracting(NodeProperties::getUri)
			.containsExactly("redis://a:6379", "redis://b:6379");
	}

	@Test
	void retryDelayBindsFromARangeOrFromMinAndMax() {
		QuorumLockProperties range = bind(Map.of("quorumlock.retry-delay", "5ms..1s"));
		assertThat(range.getRetryDelay().getMin()).isEqualTo(Duration.ofMillis(5));
		assertThat(range.getRetryDelay().getMax()).isEqualTo(Duration.ofSeconds(1));
		QuorumLockProperties nested = bind(Map.of("quorumlock.retry-delay.max", "PT2S"));
		assertThat(nested.getRetryDelay().getMin()).isEqualTo(Duration.ofMillis(10));
		assertThat(nested.getRetryDelay().getMax()).isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void instanceOptionsFallBackToGlobalOnes() {
		QuorumLockProperties properties = bind(Map.of("quorumlock.lease", "40s", "quorumlock.instances.orders.lease",
				"10s", "quorumlock.instances.orders.renew", "false"));
		assertThat(ConfiguredLockOptions.forName(properties, "orders"))
			.isEqualTo(LockOptions.none().lease(Duration.ofSeconds(10)).waitAtMost(Duration.ZERO).renew(false));
		assertThat(ConfiguredLockOptions.forName(properties, "other").lease()).contains(Duration.ofSeconds(40));
		QuorumLockProperties held = bind(Map.of("quorumlock.hold-at-least", "5s",
				"quorumlock.instances.report.hold-at-least", "1m", "quorumlock.instances.now.hold-at-least", "0s"));
		assertThat(ConfiguredLockOptions.forName(held, "report").holdAtLeast()).contains(Duration.ofMinutes(1));
		assertThat(ConfiguredLockOptions.forName(held, "now").holdAtLeast()).contains(Duration.ZERO);
		assertThat(ConfiguredLockOptions.forName(held, "other").holdAtLeast()).contains(Duration.ofSeconds(5));
	}

	private static QuorumLockProperties bind(Map<String, String> values) {
		ApplicationConversionService conversion = new ApplicationConversionService();
		conversion.addConverter(new NodeConverter());
		conversion.addConverter(new RetryDelayConverter());
		Binder binder = new Binder(List.of(new MapConfigurationPropertySource(values)), null, conversion);
		return binder.bindOrCreate("quorumlock", Bindable.of(QuorumLockProperties.class));
	}

}
