package io.quorumlock.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.quorumlock.LockRequest;
import io.quorumlock.redis.node.ManualTimers;

/**
 * The engine's parts wired as {@link QuorumLockEngine} wires them, around a scripted
 * {@link Voters}, faked pub/sub and a fake clock: no Redis, no engine threads.
 */
final class EngineParts {

	static final long NODE_TIMEOUT = TimeUnit.MILLISECONDS.toNanos(50);

	final ManualTimers timers = new ManualTimers();

	final ScriptedVoters voters;

	final LocalGates gates = new LocalGates();

	final List<FakeChannels> channels = List.of(new FakeChannels(), new FakeChannels(), new FakeChannels());

	final ReleaseSignals signals = new ReleaseSignals(this.channels);

	final Validity validity = new Validity(0.01);

	final Acquirer acquirer;

	final LeaseWatchdog watchdog;

	EngineParts(int nodes) {
		this(nodes, Duration.ZERO);
	}

	/** With a retry budget for rounds that no answer decided. */
	EngineParts(int nodes, Duration retryBudget) {
		this.voters = new ScriptedVoters(nodes);
		CallerThreads threads = new CallerThreads(Runnable::run);
		Listeners listener = new Listeners(List.of(), threads);
		Losses losses = new Losses(listener, this.gates);
		Releaser releaser = new Releaser(this.voters, this.gates, listener, this.timers, threads, losses,
				OnLeaseLost.THROW);
		Fencing fencing = new Fencing(this.voters, this.timers, losses, threads, 60_000);
		LeaseWatchdog watchdog = new LeaseWatchdog(this.voters, this.timers, this.validity, losses, listener);
		this.watchdog = watchdog;
		this.acquirer = new Acquirer(this.voters, this.gates, this.signals, this.timers, this.validity, watchdog,
				listener, releaser,
				new Leases(releaser, fencing, this.timers,
						new Extender(watchdog, losses, threads, this.timers, Duration.ofNanos(NODE_TIMEOUT),
								RestartGuard.of(1, null, java.util.Map.of()))),
				NODE_TIMEOUT, retryBudget.toNanos(), new Tokens(new SecureRandom()), new Pending());
	}

	static ResolvedRequest request(Duration lease, Duration waitAtMost, String... keys) {
		List<String> redisKeys = java.util.Arrays.stream(keys).map((key) -> "lock:{" + key + "}").toList();
		return new ResolvedRequest(LockRequest.of(List.of(keys)), redisKeys, lease, waitAtMost, true, Optional.empty());
	}

	CompletableFuture<RedisLease> start(ResolvedRequest request) {
		CompletableFuture<RedisLease> result = this.acquirer.start(request);
		this.timers.runDue();
		return result;
	}

}
