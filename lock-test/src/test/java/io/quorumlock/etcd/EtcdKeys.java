package io.quorumlock.etcd;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;

/**
 * A plain jetcd client that reads what the etcd registry wrote, for the tests' checks:
 * the waiters' keys of a lock key (its range, {@code <lock key>} and a NUL byte) and
 * their etcd leases' TTL.
 */
public final class EtcdKeys implements AutoCloseable {

	private final Client client;

	public EtcdKeys(List<String> endpoints) {
		this.client = Client.builder().endpoints(endpoints.toArray(String[]::new)).build();
	}

	/** The keys of the lock key's waiters and holder, oldest first. */
	public List<KeyValue> waiters(String lockKey) {
		ByteSequence range = ByteSequence.from(lockKey + EtcdRequest.SEPARATOR, StandardCharsets.UTF_8);
		try {
			return this.client.getKVClient()
				.get(range,
						GetOption.builder()
							.isPrefix(true)
							.withSortField(GetOption.SortTarget.CREATE)
							.withSortOrder(GetOption.SortOrder.ASCEND)
							.build())
				.get(10, TimeUnit.SECONDS)
				.getKvs();
		}
		catch (Exception ex) {
			throw new IllegalStateException("cannot read " + lockKey, ex);
		}
	}

	/** The TTL etcd has left for a key's lease, in seconds; -1 if none. */
	public long ttlSeconds(KeyValue key) {
		try {
			return this.client.getLeaseClient()
				.timeToLive(key.getLease(), LeaseOption.DEFAULT)
				.get(10, TimeUnit.SECONDS)
				.getTTL();
		}
		catch (Exception ex) {
			throw new IllegalStateException("cannot read the lease of " + key.getKey(), ex);
		}
	}

	/** The store's current revision. */
	public long revision() {
		try {
			return this.client.getKVClient()
				.get(ByteSequence.from("\0", StandardCharsets.UTF_8), GetOption.builder().withCountOnly(true).build())
				.get(10, TimeUnit.SECONDS)
				.getHeader()
				.getRevision();
		}
		catch (Exception ex) {
			throw new IllegalStateException("cannot read the revision", ex);
		}
	}

	@Override
	public void close() {
		this.client.close();
	}

}
