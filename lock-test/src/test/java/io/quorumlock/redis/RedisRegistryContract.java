package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;

import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The registry contract on the engine over real servers, checking the keys on them too.
 * Each test gets two engines, the second standing for another process.
 */
abstract class RedisRegistryContract extends DistributedLockRegistryContract<QuorumLockEngine> {

	/** The servers of this topology. */
	abstract RedisServers redis();

	/** Nodes that are up, where a held key must be visible. */
	List<RedisServer> liveNodes() {
		return redis().nodes();
	}

	/**
	 * Nodes where a held {@code redisKey} must be visible: every live node, or on a
	 * cluster the master of its slot.
	 */
	List<RedisServer> nodesHolding(String redisKey) {
		return liveNodes();
	}

	QuorumLockEngine engine() {
		return QuorumLockEngine.builder()
			.nodes(redis().uris())
			// not a test of timeouts: room for a loaded machine's answers, below a third
			// of
			// the contract's shortest lease
			.nodeTimeout(Duration.ofMillis(500))
			// the fixture starts its servers fresh: no restart guard here
			.rejoinDelay(Duration.ZERO)
			.build();
	}

	@Override
	QuorumLockEngine registry() {
		return engine();
	}

	@Override
	QuorumLockEngine otherProcess(QuorumLockEngine first) {
		return engine();
	}

	@Override
	void assertStored(String redisKey, Duration lease) {
		// granted once a quorum said OK; the other nodes' answers follow within the node
		// timeout
		for (RedisServer node : nodesHolding(redisKey)) {
			await("key on " + node).atMost(Duration.ofSeconds(5)).until(() -> node.exists(redisKey));
			assertThat(node.pttl(redisKey)).isPositive().isLessThanOrEqualTo(lease.toMillis());
		}
	}

	@Override
	void assertStoredLongerThan(String redisKey, Duration atLeast) {
		// extended once a quorum did; the other nodes' answers follow within the node
		// timeout
		for (RedisServer node : nodesHolding(redisKey)) {
			await("TTL on " + node).atMost(Duration.ofSeconds(5)).until(() -> node.pttl(redisKey) > atLeast.toMillis());
		}
	}

	@Override
	void assertNotStored(String redisKey) {
		// release returns once a quorum deleted the key; the others follow within the
		// node timeout
		for (RedisServer node : nodesHolding(redisKey)) {
			await().atMost(Duration.ofSeconds(5)).until(() -> !node.exists(redisKey));
		}
	}

	@Override
	void assertHeldByNewerOwner(String redisKey) {
		// the newer owner holds a quorum (a node where the stale key had not expired yet
		// said no)
		long holding = nodesHolding(redisKey).stream().filter((node) -> node.exists(redisKey)).count();
		assertThat(holding).as("nodes still holding the newer owner's key").isGreaterThanOrEqualTo(this.locks.quorum());
	}

}
