package io.quorumlock.redis;

import java.security.SecureRandom;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.Lock;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.LockRules;
import io.quorumlock.RegistryAdmin;
import io.quorumlock.RegistryStatus;
import io.quorumlock.redis.node.RedisNode;
import io.quorumlock.redis.node.Timers;

/**
 * {@link DistributedLockRegistry} on one Redis master or on N independent masters with
 * the Redlock quorum: single mode is N = 1 with quorum 1, the same code. Usable without
 * Spring: <pre>{@code
 * try (QuorumLockEngine locks = QuorumLockEngine.builder()
 *         .nodes("redis://redis-1:6379", "redis://redis-2:6379", "redis://redis-3:6379")
 *         .build()) {
 *     try (Lease lease = locks.acquire(LockRequest.of("order:42").waitAtMost(Duration.ofSeconds(5)))) {
 *         // at most one holder across every process using these masters
 *     }
 * }
 * }</pre> Acquiring sends {@code SET key token NX PX lease} to every node in parallel,
 * each bounded by the node timeout, and holds the lock iff a majority said OK and the
 * validity left (the lease, less the time spent and a clock-drift allowance) is positive;
 * otherwise it deletes its token on every node and, while the wait allows, retries when
 * the holder's release is published or after a jittered back-off. Threads of this JVM
 * waiting for one key queue locally, so only one of them polls Redis.
 * <p>
 * Single mode can also run on a Redis Cluster ({@link Builder#cluster(String...)}): the
 * whole cluster is the one node, and each key of a lock is one key in the hash slot of
 * its hash tag, on whichever master owns that slot.
 */
public final class QuorumLockEngine implements DistributedLockRegistry, RegistryStatus, RegistryAdmin, AutoCloseable {

	private final CallerThreads threads;

	private final Listeners listener;

	private final Timers timers;

	/** The engine's own timers, closed with it; null when a test supplies them. */
	private final EngineTimers ownTimers;

	private final Connections connections;

	private final RestartGuard guard;

	private final LocalGates gates = new LocalGates();

	private final RequestResolver resolver;

	private final Requests requests;

	private final Releaser releaser;

	private final EngineStatus status;

	private final Voters voters;

	private final Pending pending = new Pending();

	private final LockQuery query;

	/** How long closing waits for the releases of the leases still held. */
	private final Duration releaseOnClose;

	/** Each node's first deadline in a round, as built. */
	private final Duration nodeTimeout;

	/**
	 * @param runtime what a test supplies the engine to run on (its timers, randomness
	 * and transports), or null for its own threads, a {@code SecureRandom} and Lettuce
	 */
	QuorumLockEngine(EngineSettings settings, EngineRuntime runtime) {
		boolean ownAsync = runtime == null && settings.asyncExecutor() == null;
		Executor async = (runtime != null) ? runtime.async() : (settings.asyncExecutor() != null)
				? settings.asyncExecutor() : CallerThreads.defaultAsync(ForkJoinPool.getCommonPoolParallelism());
		this.threads = new CallerThreads(async, ownAsync);
		this.listener = new Listeners(settings.listeners(), this.threads);
		this.ownTimers = (runtime != null) ? null : new EngineTimers(this.threads, settings.nanoClock(),
				settings.retryMin().toNanos(), settings.retryMax().toNanos());
		this.timers = (runtime != null) ? runtime.timers() : this.ownTimers;
		Random random = (runtime != null) ? runtime.random() : new SecureRandom();
		this.connections = new Connections(settings, this.timers, this.listener, random, runtime);
		this.guard = settings.guard();
		this.releaseOnClose = (runtime != null) ? Duration.ZERO : settings.commandTimeout();
		HeldBack heldBack = new HeldBack(this.connections.sameServer(), settings.evictionAllowed());
		this.nodeTimeout = settings.nodeTimeout();
		long nodeTimeoutNanos = this.nodeTimeout.toNanos();
		this.voters = new RedisVoters(this.connections.nodes(), heldBack, this.timers, this.listener,
				settings.syncReplicas(), nodeTimeoutNanos, this.connections.markerKey());
		Losses losses = new Losses(this.listener, this.gates);
		Validity validity = new Validity(settings.clockDriftFactor());
		this.releaser = new Releaser(this.voters, this.gates, this.listener, this.timers, this.threads, losses,
				settings.onLeaseLost());
		Fencing fencing = new Fencing(this.voters, this.timers, losses, this.threads,
				settings.fencingCounterTtl().toMillis());
		LeaseWatchdog watchdog = new LeaseWatchdog(this.voters, this.timers, validity, losses, this.listener);
		Acquirer acquirer = new Acquirer(this.voters, this.gates, this.connections.signals(), this.timers, validity,
				watchdog, this.listener, this.releaser,
				new Leases(this.releaser, fencing, this.timers,
						new Extender(watchdog, losses, this.threads, this.timers, settings.nodeTimeout(), this.guard)),
				nodeTimeoutNanos, settings.retryBudget().toNanos(), new Tokens(random), this.pending);
		this.resolver = new RequestResolver(settings);
		Reentry reentry = new Reentry(this.gates, losses);
		this.requests = new Requests(this.resolver, reentry, acquirer, this.releaser, this.threads);
		// a stalled master costs a query latency, up to the retry budget, never an answer
		this.query = new LockQuery(this.voters, this.resolver, reentry, this.gates, this.threads,
				Math.max(nodeTimeoutNanos, settings.retryBudget().toNanos()));
		this.status = new EngineStatus(this.connections.nodes(), heldBack, this.voters, this.gates, this.timers,
				settings.keyPrefix());
		String refusal = this.connections.start();
		if (refusal != null) {
			close();
			throw new IllegalArgumentException(refusal);
		}
	}

	/**
	 * Start building an engine.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * The restart guard in force: a node must have been up this long to vote; zero when
	 * off (single mode, or a rejoin delay of zero). Fixed when the engine is built: the
	 * explicit {@link Builder#rejoinDelay(Duration) rejoin delay}, else the longest of
	 * the default lease, the instance leases and the {@link Builder#declaredLeases
	 * declared leases}; a request with a longer lease is refused.
	 * @return the rejoin delay in force
	 */
	public Duration rejoinDelay() {
		return Duration.ofNanos(this.guard.nanos());
	}

	/**
	 * Each node's deadline in a round's first attempt, as built: the
	 * {@link Builder#nodeTimeout(Duration) node timeout}. Every lease is longer than
	 * three of it; a round that silence left undecided is retried with a longer deadline
	 * (within the {@link Builder#retryBudget(Duration) retry budget}).
	 * @return the node timeout
	 */
	public Duration nodeTimeout() {
		return this.nodeTimeout;
	}

	/**
	 * Number of nodes a grant needs: N/2+1.
	 * @return the quorum
	 */
	@Override
	public int quorum() {
		return this.voters.quorum();
	}

	@Override
	public String mode() {
		return (this.voters.size() == 1) ? "single" : "quorum";
	}

	@Override
	public List<RegistryStatus.Node> nodes() {
		return this.status.nodes();
	}

	@Override
	public List<RegistryStatus.HeldLease> leases() {
		return this.status.leases();
	}

	@Override
	public int forceUnlock(String redisKey) {
		return this.status.forceUnlock(redisKey);
	}

	@Override
	public List<String> keysWithoutTtl(int limit) {
		return this.status.keysWithoutTtl(limit);
	}

	/**
	 * Addresses ({@code host:port}, never credentials) of the nodes, in configuration
	 * order.
	 * @return the node addresses
	 */
	public List<String> nodeAddresses() {
		return this.connections.nodes().stream().map(RedisNode::address).toList();
	}

	@Override
	public Lease acquire(LockRequest request) {
		return acquireBlocking(request, true);
	}

	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		try {
			return Optional.of(acquireBlocking(request, true));
		}
		catch (LockNotAcquiredException ex) {
			if (Thread.currentThread().isInterrupted()) {
				throw ex;
			}
			return Optional.empty();
		}
	}

	@Override
	public CompletableFuture<Lease> acquireAsync(LockRequest request) {
		return this.requests.acquireAsync(request);
	}

	@Override
	public <T> T execute(LockRequest request, Callable<T> action) {
		return Execution.execute(acquire(request), action, this.resolver, request);
	}

	@Override
	public Lock asLock(String key) {
		return new LockView(this, LockRequest.of(key));
	}

	@Override
	public Lock asLock(LockRequest request) {
		LockView.checkViewable(request);
		return new LockView(this, request);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * One round asks every voting master whether the key is there, each answer awaited up
	 * to the retry budget (at least the node timeout), deciding as soon as the answers
	 * do.
	 */
	@Override
	public boolean isLocked(LockRequest request) {
		return this.query.isLocked(request);
	}

	@Override
	public CompletableFuture<Boolean> isLockedAsync(LockRequest request) {
		return this.query.isLockedAsync(request);
	}

	@Override
	public boolean isHeldByCurrentThread(LockRequest request) {
		return this.query.isHeldByCurrentThread(request);
	}

	@Override
	public boolean isHeldByThisInstance(LockRequest request) {
		return this.query.isHeldByThisInstance(request);
	}

	/** Blocking acquisition shared by every blocking entry point ({@link Requests}). */
	Lease acquireBlocking(LockRequest request, boolean interruptible) {
		return this.requests.acquireBlocking(request, interruptible);
	}

	/** The lease in whose scope this thread runs on every key of the request, or null. */
	RedisLease heldInScope(LockRequest request) {
		return this.requests.heldInScope(request);
	}

	ReleaseSignals signals() {
		return this.connections.signals();
	}

	ScheduledExecutorService scheduler() {
		return this.ownTimers.scheduler();
	}

	LocalGates gates() {
		return this.gates;
	}

	/**
	 * Close the engine: every acquisition in progress fails at once (blocking, async and
	 * {@link Lock} views alike) with a {@link LockNotAcquiredException} saying the
	 * registry was closed, as does every later one; the leases still held are released
	 * (waiting for the nodes at most a command timeout, then left to expire); then every
	 * connection is closed and the engine's threads stop.
	 */
	@Override
	public void close() {
		this.pending.close();
		releaseHeld();
		boolean interrupted = false;
		if (this.ownTimers != null) {
			this.ownTimers.close();
		}
		this.listener.close();
		try {
			if (this.ownTimers != null) {
				this.ownTimers.awaitTermination();
			}
		}
		catch (InterruptedException ex) {
			interrupted = true;
		}
		this.connections.close();
		this.threads.close();
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/** Release the leases this engine holds, waiting a bounded time for the nodes. */
	private void releaseHeld() {
		List<CompletableFuture<Void>> releases = new ArrayList<>();
		// in the order they were granted, the same every time for the same history
		List<RedisLease> held = new ArrayList<>(this.gates.leases());
		held.sort(Comparator.comparingLong(RedisLease::acquiredAt).thenComparing((lease) -> lease.token(0)));
		for (RedisLease lease : held) {
			if (!lease.isReleased()) {
				releases.add(this.releaser.releaseAsync(lease).exceptionally((error) -> null));
			}
		}
		if (releases.isEmpty() || this.releaseOnClose.isZero() || this.threads.isEngineThread(Thread.currentThread())) {
			return;
		}
		try {
			CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new))
				.get(this.releaseOnClose.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// left to expire on the nodes
		}
	}

	/**
	 * Builds a {@link QuorumLockEngine}. Every setting has a default except the nodes.
	 */
	public static final class Builder extends EngineBuilder {

		/**
		 * Default node timeout of the builder, whatever the number of nodes (the Spring
		 * Boot starter chooses a longer one for a single node:
		 * {@link LockRules#defaultNodeTimeout}).
		 */
		public static final Duration DEFAULT_NODE_TIMEOUT = LockRules.QUORUM_NODE_TIMEOUT;

		/** Default clock drift factor. */
		public static final double DEFAULT_CLOCK_DRIFT_FACTOR = 0.01;

		/** Default key prefix. */
		public static final String DEFAULT_KEY_PREFIX = "lock:";

		/** Default time to live of a fencing counter. */
		public static final Duration DEFAULT_FENCING_COUNTER_TTL = Duration.ofHours(1);

		/** Default lease of a request that sets none. */
		public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

		/** Default lower bound of the jittered retry delay. */
		public static final Duration DEFAULT_RETRY_MIN = Duration.ofMillis(10);

		/** Default upper bound of the jittered retry delay. */
		public static final Duration DEFAULT_RETRY_MAX = Duration.ofMillis(200);

		/**
		 * Default retry budget: how long a call goes on retrying rounds that no answer
		 * decided, beyond its wait (a CPU-throttled pod or a GC pause stalls a client for
		 * tens to hundreds of milliseconds).
		 */
		public static final Duration DEFAULT_RETRY_BUDGET = Duration.ofSeconds(1);

		/** Default longest lock key, in characters. */
		public static final int DEFAULT_MAX_KEY_LENGTH = 512;

		Builder() {
		}

	}

}
