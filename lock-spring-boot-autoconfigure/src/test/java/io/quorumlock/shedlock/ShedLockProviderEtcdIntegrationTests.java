package io.quorumlock.shedlock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.etcd.EtcdLockRegistry;
import io.quorumlock.testing.EtcdCluster;
import io.quorumlock.testing.EtcdMembers;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's provider contract on a three-member etcd cluster: the same
 * {@link QuorumLockProvider} over an {@link EtcdLockRegistry} with a 1 s request timeout
 * (etcd's rule binds only leases that renew; the shortest lock here is 2 s), a lock seen
 * held when etcd has a key of the lock (one per hold: {@code lock:shedlock:{name}}, a NUL
 * byte and the hold's lease). One test takes ShedLock's steps with etcd's granularity: a
 * {@code lockAtLeastFor} keeps the key on an etcd lease of whole seconds (at least etcd's
 * minimum TTL), so the lock frees up to that much later than ShedLock's grace period
 * expects, never sooner.
 */
@EtcdCluster(members = 3)
class ShedLockProviderEtcdIntegrationTests extends ShedLockProviderContract {

	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(1);

	static EtcdMembers etcd;

	private static Client client;

	@BeforeAll
	static void connect() {
		client = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build();
	}

	@AfterAll
	static void disconnect() {
		client.close();
	}

	@Override
	RedisServers redis() {
		return null;
	}

	@Override
	DistributedLockRegistry startRegistry() {
		return EtcdLockRegistry.builder().endpoints(etcd.endpoints()).requestTimeout(REQUEST_TIMEOUT).build();
	}

	@Override
	Duration shortestLock() {
		return Duration.ofSeconds(2);
	}

	/**
	 * ShedLock's steps ({@code doTestShouldLockAtLeastFor}) with etcd's granularity (see
	 * the class comment): held through {@code lockAtLeastFor} after an unlock, free
	 * within etcd's rounding of the rest of it.
	 */
	@Test
	@Override
	public void shouldLockAtLeastFor() {
		Optional<SimpleLock> lock1 = getLockProvider()
			.lock(lockConfig(this.LOCK_NAME1, LOCK_AT_LEAST_FOR.multipliedBy(2), LOCK_AT_LEAST_FOR));
		assertThat(lock1).isNotEmpty();
		lock1.get().unlock();
		assertLocked(this.LOCK_NAME1);
		assertThat(getLockProvider().lock(lockConfig(this.LOCK_NAME1))).as("held through lockAtLeastFor").isEmpty();
		SimpleLock lock2 = await("free once etcd's lease of the rest ends").atMost(Duration.ofSeconds(10))
			.until(() -> getLockProvider().lock(lockConfig(this.LOCK_NAME1)), Optional::isPresent)
			.get();
		lock2.unlock();
	}

	@Override
	protected void assertLocked(String lockName) {
		assertThat(holds(lockName)).as("holds of " + lockName).isOne();
	}

	@Override
	protected void assertUnlocked(String lockName) {
		await("no hold of " + lockName).atMost(Duration.ofSeconds(10)).until(() -> holds(lockName) == 0);
	}

	private static long holds(String lockName) {
		ByteSequence prefix = ByteSequence.from("lock:shedlock:{" + lockName + "}\0", StandardCharsets.UTF_8);
		try {
			return client.getKVClient()
				.get(prefix, GetOption.builder().isPrefix(true).withCountOnly(true).build())
				.get(5, TimeUnit.SECONDS)
				.getCount();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
