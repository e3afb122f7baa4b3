package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.actuate.NodeMetrics;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The per-master meters on three real masters, one killed and one held back by the
 * restart guard: {@code distributed.lock.node.state} says which state each is in, and
 * {@code distributed.lock.node.answers} tells contention ({@code held}) from a dead
 * master ({@code not-connected}) and one held back ({@code held-back}).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NodeMetricsIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(QuorumLockAutoConfiguration.class, QuorumLockMetricsAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new);

	@Test
	void runWithOneMasterKilledAndOneHeldBackShouldTellEachStateAndAnswer() {
		// a restart guard of 15 s: the fixture's masters are brand new, so they vote once
		// it has passed; the restarted one is then held back for as long
		this.runner
			.withPropertyValues("quorumlock.nodes=" + String.join(",", redis.uris()), "quorumlock.node-timeout=1s",
					"quorumlock.lease=15s", "quorumlock.rejoin-delay=15s")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(NodeMetrics.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				DistributedLockRegistry locks = context.getBean(DistributedLockRegistry.class);
				List<String> nodes = redis.nodes().stream().map((node) -> node.host() + ":" + node.port()).toList();
				await().atMost(Duration.ofSeconds(45))
					.untilAsserted(() -> nodes.forEach((node) -> assertThat(state(meters, node, "voting")).isOne()));
				// contention: another holder has the key on every master
				for (RedisServer server : redis.nodes()) {
					server.call("SET", "lock:{busy}", "another-holder", "PX", "60000");
				}
				assertThat(locks.tryAcquire(LockRequest.of("busy"))).isEmpty();
				locks.acquire(LockRequest.of("free")).release();
				// a round decides at a quorum: the last master's answer may come after it
				await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
					for (String node : nodes) {
						assertThat(answers(meters, node, "held")).isGreaterThanOrEqualTo(1);
						assertThat(answers(meters, node, "yes")).isGreaterThanOrEqualTo(1);
					}
				});

				redis.node(1).kill();
				redis.node(2).restart(); // empty: the guard holds it back for 15 s
				await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
					assertThat(state(meters, nodes.get(0), "voting")).isOne();
					assertThat(state(meters, nodes.get(1), "down")).isOne();
					assertThat(state(meters, nodes.get(2), "held-back")).isOne();
				});
				assertThat(state(meters, nodes.get(1), "voting")).isZero();
				assertThat(state(meters, nodes.get(2), "voting")).isZero();
				assertThat(state(meters, nodes.get(2), "down")).isZero();
				double held = answers(meters, nodes.get(0), "held");
				double notConnected = answers(meters, nodes.get(1), "not-connected");
				double heldBack = answers(meters, nodes.get(2), "held-back");
				assertThatExceptionOfType(QuorumUnavailableException.class)
					.isThrownBy(() -> locks.acquire(LockRequest.of("outage")));
				// the grant round, and perhaps its undo
				assertThat(answers(meters, nodes.get(1), "not-connected")).isGreaterThan(notConnected);
				assertThat(answers(meters, nodes.get(2), "held-back")).isGreaterThan(heldBack);
				assertThat(answers(meters, nodes.get(0), "held")).as("no contention here").isEqualTo(held);
				// bounded by the masters: 5 states and 6 outcomes each
				assertThat(meters.find(NodeMetrics.STATE).gauges()).hasSize(15);
				assertThat(meters.find(NodeMetrics.ANSWERS).functionCounters()).hasSize(18);
			});
	}

	@Test
	void runWhenMetricsDisabledShouldNotRegisterNodeMeters() {
		this.runner
			.withPropertyValues("quorumlock.nodes=" + String.join(",", redis.uris()), "quorumlock.rejoin-delay=0s",
					"quorumlock.metrics.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(NodeMetrics.class);
				assertThat(context.getBean(MeterRegistry.class).find(NodeMetrics.STATE).gauges()).isEmpty();
			});
	}

	private static double state(MeterRegistry meters, String node, String state) {
		return meters.get(NodeMetrics.STATE).tags("node", node, "state", state).gauge().value();
	}

	private static double answers(MeterRegistry meters, String node, String outcome) {
		return meters.get(NodeMetrics.ANSWERS).tags("node", node, "outcome", outcome).functionCounter().count();
	}

}
