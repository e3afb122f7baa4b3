package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.etcd.jetcd.KeyValue;
import io.quorumlock.etcd.EtcdKeys;
import io.quorumlock.etcd.EtcdLockRegistry;
import io.quorumlock.testing.EtcdCluster;
import io.quorumlock.testing.EtcdMembers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The registry contract on etcd: {@link EtcdLockRegistry} over a real three-member
 * cluster, the second registry standing for another process, with the same assertions as
 * the Redis engine's topologies; what is stored is checked in etcd (a lock key's range
 * holds one key per waiter or holder, under the hold's own etcd lease).
 */
@EtcdCluster(members = 3)
class EtcdRegistryContractTests extends DistributedLockRegistryContract<EtcdLockRegistry> {

	static EtcdMembers etcd;

	private static EtcdKeys keys;

	@BeforeAll
	static void connect() {
		keys = new EtcdKeys(etcd.endpoints());
	}

	@AfterAll
	static void disconnect() {
		keys.close();
	}

	@Override
	EtcdLockRegistry registry() {
		return EtcdLockRegistry.builder().endpoints(etcd.endpoints()).build();
	}

	@Override
	EtcdLockRegistry otherProcess(EtcdLockRegistry first) {
		return registry();
	}

	@Override
	void assertStored(String lockKey, Duration lease) {
		List<KeyValue> stored = keys.waiters(lockKey);
		assertThat(stored).as("keys of " + lockKey).hasSize(1);
		assertThat(keys.ttlSeconds(stored.get(0))).isPositive().isLessThanOrEqualTo(lease.toSeconds() + 1);
	}

	@Override
	void assertNotStored(String lockKey) {
		// release answers once etcd applied the delete: no waiting here
		assertThat(keys.waiters(lockKey)).as("keys of " + lockKey).isEmpty();
	}

	@Override
	void assertStoredLongerThan(String lockKey, Duration atLeast) {
		List<KeyValue> stored = keys.waiters(lockKey);
		assertThat(stored).as("keys of " + lockKey).hasSize(1);
		assertThat(keys.ttlSeconds(stored.get(0)) * 1000).isGreaterThan(atLeast.toMillis());
	}

	@Override
	void assertHeldByNewerOwner(String lockKey) {
		// the stale holder's key expired with its etcd lease; the newer owner's is the
		// only one
		await().atMost(Duration.ofSeconds(5)).until(() -> keys.waiters(lockKey).size() == 1);
	}

}
