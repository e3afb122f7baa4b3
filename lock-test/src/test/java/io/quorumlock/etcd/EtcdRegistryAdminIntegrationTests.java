package io.quorumlock.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.EtcdCluster;
import io.quorumlock.testing.EtcdMembers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The etcd registry's operator actions ({@link io.quorumlock.RegistryAdmin}): a forced
 * unlock ends the holder's and every waiter's hold (the holder reports its lease lost,
 * the waiter queues again and gets the lock), refuses a key outside the prefix, and the
 * leak scan finds a key under the prefix that no etcd lease will ever expire.
 */
@EtcdCluster(members = 3)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdRegistryAdminIntegrationTests {

	static EtcdMembers etcd;

	@Test
	void aForcedUnlockEndsTheHolderAndLetsTheWaiterIn() throws Exception {
		String name = "a" + UUID.randomUUID().toString().substring(0, 8);
		try (EtcdLockRegistry holder = EtcdLockRegistry.builder().endpoints(etcd.endpoints()).build();
				EtcdLockRegistry waiter = EtcdLockRegistry.builder().endpoints(etcd.endpoints()).build()) {
			// renewed every lease/3: the holder hears of the forced unlock within 2 s
			Lease held = holder.acquire(LockRequest.of("k").name(name).lease(Duration.ofSeconds(6)));
			CompletableFuture<Lease> waiting = waiter
				.acquireAsync(LockRequest.of("k").name(name).waitAtMost(Duration.ofSeconds(30)));
			String lockKey = "lock:" + name + ":{k}";
			try (EtcdKeys keys = new EtcdKeys(etcd.endpoints())) {
				await().atMost(Duration.ofSeconds(10)).until(() -> keys.waiters(lockKey).size() == 2);
			}
			assertThat(holder.forceUnlock(lockKey)).isEqualTo(2);
			try (Lease next = waiting.get(10, TimeUnit.SECONDS)) {
				assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> !held.isValid());
		}
	}

	@Test
	void aKeyOutsideThePrefixIsRefused() {
		try (EtcdLockRegistry registry = EtcdLockRegistry.builder().endpoints(etcd.endpoints()).build()) {
			assertThatIllegalArgumentException().isThrownBy(() -> registry.forceUnlock("other:{k}"))
				.withMessageContaining("'other:{k}' is not a lock key under this registry's prefix 'lock:'");
			assertThat(registry.forceUnlock("lock:nobody:{k}")).isZero();
		}
	}

	@Test
	void theLeakScanFindsAKeyWithoutALease() throws Exception {
		String key = "lock:leak-" + UUID.randomUUID().toString().substring(0, 8) + ":{k}";
		try (Client client = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build();
				EtcdLockRegistry registry = EtcdLockRegistry.builder().endpoints(etcd.endpoints()).build()) {
			client.getKVClient()
				.put(ByteSequence.from(key, StandardCharsets.UTF_8), ByteSequence.from("x", StandardCharsets.UTF_8))
				.get(10, TimeUnit.SECONDS);
			try (Lease held = registry.acquire(LockRequest.of("held").name("leases"))) {
				assertThat(registry.keysWithoutTtl(100)).contains("etcd " + key)
					.noneMatch((line) -> line.contains("lock:leases:{held}"));
			}
			assertThat(registry.forceUnlock(key)).isZero();
			client.getKVClient().delete(ByteSequence.from(key, StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
		}
	}

}
