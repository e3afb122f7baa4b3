package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lease released within its {@code holdAtLeast} while its master cannot be reached: the
 * key must not stay for the rest of its lease once the master is back, but only for the
 * rest of its hold. The master is reached through an address that, for a while, reaches a
 * stopped server (the connection drops, and every reconnect fails), while the master
 * itself keeps the key.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HoldAtLeastRedoIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(60);

	private static final Duration HOLD = Duration.ofSeconds(3);

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(2);

	@Test
	void holdAtLeastOfAReleaseRefusedWhileDisconnectedIsSentAgainOnceBack() throws Exception {
		redis.node(1).stop(); // where the address points while the master is out of reach
		String key = "k" + UUID.randomUUID();
		String redisKey = "lock:{" + key + "}";
		try (RewritingProxy address = new RewritingProxy(redis.node(0));
				QuorumLockEngine engine = QuorumLockEngine.builder()
					.nodes(List.of(address.uri()))
					.nodeTimeout(Duration.ofMillis(200))
					.rejoinDelay(Duration.ZERO)
					.build()) {
			await().atMost(Duration.ofSeconds(20))
				.until(() -> engine.nodes().stream().allMatch(RegistryStatus.Node::voting));
			Lease lease = engine.acquire(LockRequest.of(key).lease(LEASE).renew(false).holdAtLeast(HOLD));
			address.pointTo(redis.node(1));
			await().atMost(Duration.ofSeconds(20))
				.until(() -> engine.nodes().stream().noneMatch(RegistryStatus.Node::up));
			try {
				lease.release(); // refused: the master is not connected
			}
			catch (RuntimeException refused) {
				// how the caller hears of it is not what this test is about
			}
			assertThat(redis.node(0).pttl(redisKey)).as("the key keeps its lease meanwhile")
				.isGreaterThan(HOLD.toMillis());
			address.pointTo(redis.node(0));
			await().atMost(Duration.ofSeconds(20)).until(() -> redis.node(0).pttl(redisKey) <= HOLD.toMillis());
		}
	}

}
