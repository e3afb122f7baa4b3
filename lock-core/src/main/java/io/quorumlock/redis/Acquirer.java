package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;

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

	/** How long a first subscription may take before the wait goes on without it. */
	final long nodeTimeoutNanos;

	private final Tokens tokens;

	Acquirer(Voters voters, LocalGates gates, ReleaseSignals signals, Timers timers, Validity validity,
			LeaseWatchdog watchdog, Listeners listener, Releaser releaser, Leases leases, long nodeTimeoutNanos,
			Tokens tokens) {
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
		this.tokens = tokens;
	}

	/** Start acquiring with a new token; the result completes with the lease or fails. */
	CompletableFuture<RedisLease> start(ResolvedRequest request) {
		long now = this.timers.nanoTime();
		return new Acquisition(this, request, this.tokens.next(), now).start();
	}

}
