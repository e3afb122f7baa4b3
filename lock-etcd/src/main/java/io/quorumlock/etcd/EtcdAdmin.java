package io.quorumlock.etcd;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.etcd.jetcd.KeyValue;

/**
 * The registry's operator actions ({@link io.quorumlock.RegistryAdmin}) on etcd: a forced
 * unlock revokes the etcd lease of every hold of one lock (never a delete by name of a
 * key a later holder may own: a revoke names only that hold's lease), and the leak scan
 * lists keys under the prefix that no lease will expire. Blocking: for an operator's
 * thread, never an event loop.
 */
final class EtcdAdmin {

	private final EtcdLockRegistry registry;

	private final String prefix;

	EtcdAdmin(EtcdLockRegistry registry, String prefix) {
		this.registry = registry;
		this.prefix = prefix;
	}

	int forceUnlock(String lockKey) {
		if (lockKey == null || !lockKey.startsWith(this.prefix) || lockKey.indexOf(EtcdRequest.SEPARATOR) >= 0) {
			throw new IllegalArgumentException(
					"'" + lockKey + "' is not a lock key under this registry's prefix '" + this.prefix + "'");
		}
		EtcdCalls calls = this.registry.calls();
		List<KeyValue> holds = this.registry.await(calls.keysUnder(EtcdCalls.bytes(lockKey + EtcdRequest.SEPARATOR)))
			.getKvs();
		for (KeyValue hold : holds) {
			// a key without a lease was not written by a hold: deleted as it is
			this.registry
				.await((hold.getLease() != 0) ? calls.revoke(hold.getLease()) : calls.deleteKey(hold.getKey()));
		}
		return holds.size();
	}

	List<String> keysWithoutTtl(int limit) {
		List<String> found = new ArrayList<>();
		for (KeyValue key : this.registry.await(this.registry.calls().keysUnder(EtcdCalls.bytes(this.prefix)))
			.getKvs()) {
			if (key.getLease() == 0 && found.size() < limit) {
				found.add("etcd " + key.getKey().toString(StandardCharsets.UTF_8).replace("\0", "\\0"));
			}
		}
		return found;
	}

}
