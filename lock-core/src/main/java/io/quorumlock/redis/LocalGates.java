package io.quorumlock.redis;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Per-key FIFO gates that make the threads of this JVM queue locally for a key, so that
 * only one of them (the gate's owner) talks to Redis about it, and a local release hands
 * the key to the next local waiter at once. A lease owns the gates of its keys from grant
 * to release.
 * <p>
 * Invariant: a key has an entry in {@code gates} exactly while someone owns its gate, so
 * an idle key leaves no state behind. Every transition happens inside
 * {@link ConcurrentHashMap#compute}, and ownership passes through the atomic completion
 * of a waiter's future: whoever completes it first (the leaver granting it, or the waiter
 * giving up) decides whether the waiter became the owner.
 */
class LocalGates {

	static final CompletableFuture<Void> OWNED = CompletableFuture.completedFuture(null);

	private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();

	/** Leases lost before their release, which already left their gates. */
	private final Set<RedisLease> lostUnreleased = ConcurrentHashMap.newKeySet();

	/** The gates of shared acquisitions, which never queue; null in that twin itself. */
	private final SharedGates shared;

	LocalGates() {
		this.shared = new SharedGates(this);
	}

	/** For {@link SharedGates}. */
	LocalGates(LocalGates exclusive) {
		this.shared = null;
	}

	/** The gates a request goes through: the shared twin for a shared request. */
	LocalGates of(ResolvedRequest request) {
		return (request.isShared() && this.shared != null) ? this.shared : this;
	}

	/** A lease was granted through these gates (the grant set each gate's lease). */
	void granted(RedisLease lease) {
	}

	/**
	 * A lease granted through these gates was released: leave its keys' gates, unless its
	 * loss left them before (a gate it left may be someone else's by now).
	 */
	void released(RedisLease lease) {
		this.lostUnreleased.remove(lease);
		leaveAll(lease);
	}

	/**
	 * A lease granted through these gates was lost before its release: leave its keys'
	 * gates now, so that the next local waiter competes for them, and keep the lease
	 * aside until it is released.
	 */
	void lost(RedisLease lease) {
		this.lostUnreleased.add(lease);
		if (lease.isReleased()) {
			// released meanwhile: its release may have looked for it before it was added
			this.lostUnreleased.remove(lease);
		}
		leaveAll(lease);
	}

	private void leaveAll(RedisLease lease) {
		if (!lease.leaveGates()) {
			return;
		}
		List<String> keys = lease.request().redisKeys();
		for (int i = 0; i < keys.size(); i++) {
			leave(keys.get(i));
		}
	}

	/** Leases lost before their release, out of their gates, until released. */
	Collection<RedisLease> lostUnreleased() {
		return this.lostUnreleased;
	}

	/**
	 * One key's gate. {@code waiters} is touched only inside {@code compute}, and made
	 * only when someone waits: most gates never have a waiter.
	 */
	static final class Gate {

		ArrayDeque<CompletableFuture<Void>> waiters;

		/**
		 * The lease holding the key through this gate, for re-entry checks; null while
		 * acquiring.
		 */
		volatile RedisLease lease;

	}

	/** Take the gate if nobody owns it; never waits. */
	boolean tryEnter(String key) {
		return this.gates.putIfAbsent(key, new Gate()) == null;
	}

	/**
	 * Take the gate, now or when the owners before us leave. The caller owns the gate
	 * once the future completes normally; to give up, it completes the future
	 * exceptionally, and if that fails (the gate was granted in between) it owns the gate
	 * and must {@link #leave}.
	 */
	CompletableFuture<Void> enter(String key) {
		@SuppressWarnings("unchecked")
		CompletableFuture<Void>[] ticket = new CompletableFuture[1];
		this.gates.compute(key, (k, gate) -> {
			if (gate == null) {
				ticket[0] = OWNED;
				return new Gate();
			}
			ticket[0] = new CompletableFuture<>();
			if (gate.waiters == null) {
				gate.waiters = new ArrayDeque<>(4);
			}
			gate.waiters.add(ticket[0]);
			return gate;
		});
		return ticket[0];
	}

	/**
	 * Give the gate to the next waiter that still wants it, or drop it. Only the owner
	 * calls this.
	 */
	void leave(String key) {
		while (true) {
			@SuppressWarnings("unchecked")
			CompletableFuture<Void>[] next = new CompletableFuture[1];
			this.gates.computeIfPresent(key, (k, gate) -> {
				gate.lease = null;
				CompletableFuture<Void> waiter = null;
				if (gate.waiters != null) {
					do {
						waiter = gate.waiters.poll();
					}
					while (waiter != null && waiter.isDone());
				}
				next[0] = waiter;
				return (waiter != null) ? gate : null;
			});
			// Complete outside compute: the waiter's continuation may run on this thread.
			if (next[0] == null || next[0].complete(null)) {
				return;
			}
			// That waiter gave up in between; offer the gate to the one after it.
		}
	}

	/** Leases holding gates now (and shared leases held), each once. */
	Collection<RedisLease> leases() {
		Set<RedisLease> leases = Collections.newSetFromMap(new IdentityHashMap<>());
		if (this.shared != null) {
			leases.addAll(this.shared.leases());
		}
		leases.addAll(this.lostUnreleased);
		for (Gate gate : this.gates.values()) {
			RedisLease lease = gate.lease;
			if (lease != null) {
				leases.add(lease);
			}
		}
		return leases;
	}

	Gate gate(String key) {
		return this.gates.get(key);
	}

	int size() {
		return this.gates.size();
	}

}
