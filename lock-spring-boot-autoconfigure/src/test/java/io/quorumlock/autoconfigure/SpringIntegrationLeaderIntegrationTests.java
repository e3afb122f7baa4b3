package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import io.quorumlock.integration.QuorumLockRegistry;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Spring Integration on quorumlock: the auto-configured {@link LockRegistry}, and
 * {@link LockRegistryLeaderInitiator} electing one leader among three contexts on three
 * masters, handing over when the leader's context closes, and electing nobody once a
 * majority of masters is lost.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SpringIntegrationLeaderIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(QuorumLockAutoConfiguration.class, QuorumLockIntegrationAutoConfiguration.class))
		.withPropertyValues("quorumlock.nodes=" + String.join(",", redis.uris()), "quorumlock.rejoin-delay=0s",
				BoundedWait.NODE_TIMEOUT);

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@AfterEach
	void closeInstances() {
		this.instances.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void lockRegistryIsAutoConfigured() {
		this.runner.run((context) -> {
			LockRegistry registry = context.getBean(LockRegistry.class);
			assertThat(registry).isInstanceOf(QuorumLockRegistry.class);
			Lock lock = registry.obtain("orders");
			assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
			try {
				// granted at a quorum of two: the third master's SET may land later
				assertThat(redis.nodes().stream().filter((node) -> node.exists("lock:{integration:orders}")).count())
					.isGreaterThanOrEqualTo(2);
			}
			finally {
				lock.unlock();
			}
			assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(42))
				.withMessage("lock key must be a non-empty String, was 42");
		});
	}

	@Test
	void applicationLockRegistryWins() {
		this.runner.withBean(LockRegistry.class, DefaultLockRegistry::new)
			.run((context) -> assertThat(context).getBean(LockRegistry.class).isInstanceOf(DefaultLockRegistry.class));
	}

	@Test
	void exactlyOneLeaderAndHandOverWhenItsContextCloses() {
		for (int i = 0; i < 3; i++) {
			this.instances.add(start());
		}
		int leader = awaitOneLeader();
		// it stays the only leader over many heartbeats, its lease renewed meanwhile
		await().during(Duration.ofSeconds(3))
			.atMost(Duration.ofSeconds(10))
			.until(() -> leaders().equals(List.of(leader)));
		this.instances.get(leader).close();
		int next = awaitOneLeader();
		assertThat(next).isNotEqualTo(leader);
	}

	@Test
	void nobodyLeadsWithoutAQuorum() {
		for (int i = 0; i < 3; i++) {
			this.instances.add(start());
		}
		awaitOneLeader();
		redis.node(1).kill();
		redis.node(2).kill();
		await("leadership revoked").atMost(Duration.ofSeconds(20)).until(() -> leaders().isEmpty());
		await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> leaders().isEmpty());
	}

	/** Indexes of the running instances that lead. */
	private List<Integer> leaders() {
		List<Integer> leaders = new ArrayList<>();
		for (int i = 0; i < this.instances.size(); i++) {
			ConfigurableApplicationContext context = this.instances.get(i);
			if (context.isActive() && context.getBean(LockRegistryLeaderInitiator.class).getContext().isLeader()) {
				leaders.add(i);
			}
		}
		return leaders;
	}

	private int awaitOneLeader() {
		return await("one leader").atMost(Duration.ofSeconds(30))
			.until(this::leaders, (leaders) -> leaders.size() == 1)
			.get(0);
	}

	private ConfigurableApplicationContext start() {
		return new SpringApplicationBuilder(LeaderConfiguration.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("quorumlock.nodes=" + String.join(",", redis.uris()), "quorumlock.rejoin-delay=0s",
					// room for a loaded machine's answers, below a third of the lease
					BoundedWait.NODE_TIMEOUT, "quorumlock.lease=2s", "spring.main.banner-mode=off")
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ QuorumLockAutoConfiguration.class, QuorumLockIntegrationAutoConfiguration.class })
	static class LeaderConfiguration {

		@Bean
		LockRegistryLeaderInitiator leaderInitiator(LockRegistry registry) {
			LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry);
			initiator.setHeartBeatMillis(200);
			initiator.setBusyWaitMillis(100);
			return initiator;
		}

	}

}
