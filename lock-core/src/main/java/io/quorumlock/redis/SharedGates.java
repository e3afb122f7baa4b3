package io.quorumlock.redis;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link LocalGates} of shared acquisitions: shared holders of a key coexist, in one
 * JVM as across JVMs, so they never queue locally; every one asks the nodes. It keeps the
 * shared leases held, for the status ({@code /actuator/locks}) and for re-entry.
 * Invariant: a shared lease is in {@code held} from its grant to its release.
 */
final class SharedGates extends LocalGates {

	private final Set<RedisLease> held = ConcurrentHashMap.newKeySet();

	SharedGates(LocalGates exclusive) {
		super(exclusive);
	}

	@Override
	boolean tryEnter(String key) {
		return true;
	}

	@Override
	CompletableFuture<Void> enter(String key) {
		return OWNED;
	}

	@Override
	void leave(String key) {
	}

	@Override
	Gate gate(String key) {
		return null;
	}

	@Override
	void granted(RedisLease lease) {
		this.held.add(lease);
	}

	@Override
	void released(RedisLease lease) {
		this.held.remove(lease);
	}

	/** A shared lease has no gate to leave: it stays in {@code held} until released. */
	@Override
	void lost(RedisLease lease) {
	}

	@Override
	Collection<RedisLease> leases() {
		return this.held;
	}

	/** Shared leases held now. */
	Collection<RedisLease> held() {
		return this.held;
	}

	@Override
	int size() {
		return 0;
	}

}
