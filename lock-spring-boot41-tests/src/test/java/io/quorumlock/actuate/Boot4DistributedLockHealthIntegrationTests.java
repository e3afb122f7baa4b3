package io.quorumlock.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.actuate.endpoint.SimpleStatusAggregator;
import org.springframework.boot.health.contributor.Status;

import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code distributedLock} health contributor over a real engine on real servers, with
 * Spring Boot 4's health API: the twin of the autoconfigure module's
 * {@code DistributedLockHealthIntegrationTests}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class Boot4DistributedLockHealthIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private QuorumLockEngine locks;

	@BeforeEach
	void start() {
		this.locks = QuorumLockEngine.builder()
			.nodes(redis.uris())
			// not a test of timeouts: room for a loaded machine's answers
			.nodeTimeout(Duration.ofSeconds(1))
			.rejoinDelay(Duration.ZERO) // fresh fixture servers
			.build();
	}

	@AfterEach
	void close() {
		this.locks.close();
	}

	@Test
	void healthIsUpWithAQuorumAndDownWithout() {
		HealthContributor contributor = Boot4DistributedLockHealth.contributor(this.locks);
		assertThat(contributor).isInstanceOf(CompositeHealthContributor.class);
		assertThat(aggregate(contributor)).isEqualTo(Status.UP);
		redis.node(2).kill();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> member(contributor, "node-3").getStatus()
				.getCode()
				.equals(Boot4DistributedLockHealth.NOT_VOTING));
		assertThat(aggregate(contributor)).as("a minority down keeps the application UP").isEqualTo(Status.UP);
		redis.node(1).kill();
		await().atMost(Duration.ofSeconds(5)).until(() -> aggregate(contributor).equals(Status.DOWN));
		assertThat(member(contributor, "quorum").getDetails()).containsEntry("voting", 1L).containsEntry("quorum", 2);
	}

	@Test
	void singleModeIsOneIndicator() {
		try (QuorumLockEngine single = QuorumLockEngine.builder().nodes(redis.node(0).uri()).build()) {
			HealthContributor contributor = Boot4DistributedLockHealth.contributor(single);
			assertThat(contributor).isInstanceOf(HealthIndicator.class);
			assertThat(((HealthIndicator) contributor).health().getStatus()).isEqualTo(Status.UP);
			assertThat(((HealthIndicator) contributor).health().getDetails()).containsEntry("mode", "single")
				.containsKey("address");
		}
	}

	private static org.springframework.boot.health.contributor.Health member(HealthContributor composite, String name) {
		return ((HealthIndicator) ((CompositeHealthContributor) composite).getContributor(name)).health();
	}

	private static Status aggregate(HealthContributor composite) {
		List<Status> statuses = new ArrayList<>();
		((CompositeHealthContributor) composite).stream()
			.forEach((named) -> statuses.add(((HealthIndicator) named.contributor()).health().getStatus()));
		return new SimpleStatusAggregator().getAggregateStatus(new java.util.LinkedHashSet<>(statuses));
	}

}
