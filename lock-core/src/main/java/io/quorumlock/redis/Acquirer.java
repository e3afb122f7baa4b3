package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.redis.node.Timers;
import java.util.Optional;

/**
 * Starts {@link Acquisition}s and holds, once per engine, the parts every acquisition
 * works with: the voters, the local gates, the release signals, the timers and the
 * validity arithmetic, and what takes over a granted lease (watchdog, listeners,
 * release).
 */
final class Acquirer {

	final Voters voters;

	final LocalGates gates;

	final ReleaseSignals signals;

	final Timers timers;

	final Validity validity;

	final LeaseWatchdog watchdog;

	final Listeners listener;

	final Releaser releaser;

	final Leases leases;

	/** The acquisitions in progress, ended at once when the engine closes. */
	final Pending pending;

	/** How long a first subscription may take before the wait goes on without it. */
	final long nodeTimeoutNanos;

	/**
	 * How long after its start an acquisition still retries a split vote, whatever its
	 * wait: two longest retry delays.
	 */
	final long splitWindowNanos;

	/**
	 * How long, beyond its wait, an acquisition retries rounds that no answer decided
	 * (late answers, transient refusals, a reconnect): slowness costs latency, not a
	 * failed call.
	 */
	final long retryBudgetNanos;

	/** Where every round draws its fresh token. */
	final Tokens tokens;

	/** The parts of shared acquisitions: shared rounds, no local queue; made once. */
	private volatile Acquirer shared;

	/** The parts of permit slots' tries: silent listeners; made once. */
	private volatile Acquirer slots;

	Acquirer(Voters voters, LocalGates gates, ReleaseSignals signals, Timers timers, Validity validity,
			LeaseWatchdog watchdog, Listeners listener, Releaser releaser, Leases leases, long nodeTimeoutNanos,
			long retryBudgetNanos, Tokens tokens, Pending pending) {
		this.voters = voters;
		this.gates = gates;
		this.signals = signals;
		this.timers = timers;
		this.validity = validity;
		this.watchdog = watchdog;
		this.listener = listener;
		this.releaser = releaser;
		this.leases = leases;
		this.nodeTimeoutNanos = nodeTimeoutNanos;
		this.retryBudgetNanos = retryBudgetNanos;
		this.splitWindowNanos = 2 * timers.retryMaxNanos();
		this.tokens = tokens;
		this.pending = pending;
	}

	/**
	 * Hand a granted lease over: to the local gates of its keys, the watchdog, the
	 * listeners, then the caller. Listeners hear of the grant before the caller does, so
	 * that what they record is in place by the time the caller acts on it: they run on
	 * their own thread, and the caller is handed the lease from there once they have
	 * returned (at once without listeners).
	 */
	void handOver(ResolvedRequest request, String[] tokens, long validUntil, long startedAt,
			CompletableFuture<RedisLease> result) {
		long now = this.timers.nanoTime();
		RedisLease lease = new RedisLease(this.leases, request, tokens, now, validUntil);
		List<String> keys = request.redisKeys();
		for (int i = 0; i < keys.size(); i++) { // no iterator: on every grant
			LocalGates.Gate gate = this.gates.gate(keys.get(i));
			if (gate != null) {
				gate.lease = lease;
			}
		}
		this.gates.granted(lease);
		this.watchdog.watch(lease);
		if (this.listener.isEmpty()) {
			deliver(lease, result); // no event to build
			return;
		}
		this.listener.onAcquired(request.request(), lease, Duration.ofNanos(this.timers.nanoTime() - startedAt),
				() -> deliver(lease, result));
	}

	private void deliver(RedisLease lease, CompletableFuture<RedisLease> result) {
		if (!lease.isValid()) {
			// slow listeners (or a starved machine) used up an unrenewed lease's
			// validity: a lease that is no longer held never reaches the caller
			this.releaser.releaseAsync(lease).exceptionally((error) -> null);
			result.completeExceptionally(new LockNotAcquiredException(lease.request().describe()
					+ ": not acquired, its validity ran out before it could be handed over (listeners took "
					+ TimeUnit.NANOSECONDS.toMillis(this.timers.nanoTime() - lease.acquiredAt()) + " ms)"));
			return;
		}
		if (!result.complete(lease)) {
			// The caller gave up while the last round was in flight.
			this.releaser.releaseAsync(lease);
		}
	}

	/**
	 * Delete each of {@code keys} where the token at its index holds it, on every node;
	 * done when all answered.
	 */
	CompletableFuture<?> undo(List<String> keys, String[] tokens, long leaseNanos) {
		if (keys.isEmpty()) {
			return CompletableFuture.completedFuture(null);
		}
		CompletableFuture<?>[] rounds = new CompletableFuture<?>[keys.size()];
		for (int i = 0; i < rounds.length; i++) {
			rounds[i] = this.voters.release(keys.get(i), tokens[i], leaseNanos);
		}
		return CompletableFuture.allOf(rounds);
	}

	/** Start acquiring; the result completes with the lease or fails. */
	CompletableFuture<RedisLease> start(ResolvedRequest request) {
		long now = this.timers.nanoTime();
		if (request.request().permits() > 1) {
			return new PermitAcquisition(this, slots(), request, now).start();
		}
		Acquirer parts = request.isShared() ? shared() : this;
		return new Acquisition(parts, request, now).start();
	}

	/** One try of one permit slot (see {@link PermitAcquisition}). */
	CompletableFuture<RedisLease> startSlot(ResolvedRequest slot) {
		return new Acquisition(this, slot, this.timers.nanoTime()).start();
	}

	/**
	 * The same parts with silent listeners, for the permit slots' tries: the listeners
	 * hear of the permit's acquisition as a whole, not of each slot tried.
	 */
	private Acquirer slots() {
		Acquirer parts = this.slots;
		if (parts == null) {
			parts = new Acquirer(this.voters, this.gates, this.signals, this.timers, this.validity, this.watchdog,
					new Listeners(List.of(), null), this.releaser, this.leases, this.nodeTimeoutNanos,
					this.retryBudgetNanos, this.tokens, this.pending);
			this.slots = parts;
		}
		return parts;
	}

	/**
	 * The same parts with the shared rounds ({@link Voters#shared()}) and the shared
	 * gates (which never queue); a benign race may make it twice.
	 */
	private Acquirer shared() {
		Acquirer parts = this.shared;
		if (parts == null) {
			parts = new Acquirer(this.voters.shared(), this.gates.of(SHARED), this.signals, this.timers, this.validity,
					this.watchdog, this.listener, this.releaser, this.leases, this.nodeTimeoutNanos,
					this.retryBudgetNanos, this.tokens, this.pending);
			this.shared = parts;
		}
		return parts;
	}

	/** A shared request, to pick the shared gates. */
	private static final ResolvedRequest SHARED = new ResolvedRequest(
			io.quorumlock.LockRequest.of("-").mode(io.quorumlock.LockMode.SHARED), java.util.List.of(),
			Duration.ofSeconds(1), Duration.ZERO, false, Optional.empty());

}
