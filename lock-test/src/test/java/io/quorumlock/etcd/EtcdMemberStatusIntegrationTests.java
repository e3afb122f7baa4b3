package io.quorumlock.etcd;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.quorumlock.RegistryStatus;
import io.quorumlock.RegistryStatus.NodeState;
import io.quorumlock.testing.EtcdCluster;
import io.quorumlock.testing.EtcdMembers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the etcd registry reports of each member ({@link RegistryStatus#nodes()}), read by
 * the health indicator and the actuator endpoint: every member voting on a healthy
 * cluster, a killed member down with the reason, a member cut off from the majority up
 * but not voting, and no quorum once a majority is gone.
 */
@EtcdCluster(members = 3)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdMemberStatusIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	static EtcdMembers etcd;

	private EtcdLockRegistry registry() {
		return EtcdLockRegistry.builder()
			.endpoints(etcd.endpoints())
			.memberStatusPeriod(Duration.ofMillis(100))
			.build();
	}

	@Test
	void everyMemberOfAHealthyClusterVotes() {
		try (EtcdLockRegistry registry = registry()) {
			await().atMost(WAIT)
				.until(() -> registry.nodes().stream().allMatch(RegistryStatus.Node::countsTowardQuorum));
			List<RegistryStatus.Node> nodes = registry.nodes();
			assertThat(nodes).extracting(RegistryStatus.Node::address)
				.containsExactlyElementsOf(etcd.members().stream().map((m) -> "127.0.0.1:" + m.clientPort()).toList());
			assertThat(nodes).extracting(RegistryStatus.Node::state).containsOnly(NodeState.VOTING);
			assertThat(nodes).allSatisfy((node) -> assertThat(node.since()).isNotNull());
			assertThat(registry.quorum()).isEqualTo(2);
			assertThat(registry.quorumAvailable()).isTrue();
		}
	}

	@Test
	void aKilledMemberIsDownAndTheQuorumStays() {
		try (EtcdLockRegistry registry = registry()) {
			await().atMost(WAIT).until(registry::quorumAvailable);
			etcd.member(2).kill();
			await().atMost(WAIT).until(() -> registry.nodes().get(2).state() == NodeState.DOWN);
			RegistryStatus.Node down = registry.nodes().get(2);
			assertThat(down.up()).isFalse();
			assertThat(down.lastError()).isNotBlank();
			await().atMost(WAIT).until(registry::quorumAvailable);
		}
	}

	@Test
	void aMemberWithoutTheMajorityAnswersButDoesNotVote() {
		try (EtcdLockRegistry registry = registry()) {
			await().atMost(WAIT).until(registry::quorumAvailable);
			etcd.member(1).kill();
			etcd.member(2).kill();
			await().atMost(WAIT).until(() -> registry.nodes().get(0).state() == NodeState.HELD_BACK);
			RegistryStatus.Node alone = registry.nodes().get(0);
			assertThat(alone.up()).isTrue();
			assertThat(alone.voting()).isFalse();
			assertThat(alone.lastError()).contains("no leader");
			// the killed members show as down once their status request fails (a request
			// to a member that does not answer takes up to the request timeout)
			await().atMost(WAIT)
				.until(() -> registry.nodes()
					.subList(1, 3)
					.stream()
					.allMatch((node) -> node.state() == NodeState.DOWN));
			assertThat(registry.quorumAvailable()).isFalse();
		}
	}

	@Test
	void aClosedRegistryReportsNoMemberUp() {
		EtcdLockRegistry registry = registry();
		await().atMost(WAIT).until(registry::quorumAvailable);
		registry.close();
		assertThat(registry.nodes()).noneMatch(RegistryStatus.Node::up);
		assertThat(registry.quorumAvailable()).isFalse();
	}

}
