package io.quorumlock.integration;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockOptions;
import io.quorumlock.etcd.EtcdLockRegistry;
import io.quorumlock.testing.EtcdCluster;
import io.quorumlock.testing.EtcdMembers;

/**
 * The Spring Integration registry's contract on a three-member etcd cluster, with a 500
 * ms request timeout and 2 s locks where the contract takes short ones (a default lease
 * longer than three request timeouts): a lock key is kept as long as the etcd lease its
 * hold's key is attached to.
 */
@EtcdCluster(members = 3)
class QuorumLockRegistryEtcdIntegrationTests extends QuorumLockRegistryContract {

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
	DistributedLockRegistry start(LockOptions defaults) {
		return EtcdLockRegistry.builder()
			.endpoints(etcd.endpoints())
			.requestTimeout(Duration.ofMillis(500))
			.defaults(defaults)
			.build();
	}

	@Override
	Duration shortLease() {
		return Duration.ofSeconds(2);
	}

	@Override
	boolean keptOverASecond(String key) {
		ByteSequence prefix = ByteSequence.from(key + "\0", StandardCharsets.UTF_8);
		try {
			List<KeyValue> holds = client.getKVClient()
				.get(prefix, GetOption.builder().isPrefix(true).build())
				.get(5, TimeUnit.SECONDS)
				.getKvs();
			if (holds.size() != 1) {
				return false;
			}
			long ttl = client.getLeaseClient()
				.timeToLive(holds.get(0).getLease(), LeaseOption.DEFAULT)
				.get(5, TimeUnit.SECONDS)
				.getTTL();
			return ttl > 1;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
