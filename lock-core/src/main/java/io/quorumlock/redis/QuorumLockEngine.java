package io.quorumlock.redis;

import java.lang.System.Logger.Level;
import java.lang.reflect.UndeclaredThrowableException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockException;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockListener;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.LockRules;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryAdmin;
import io.quorumlock.RegistryStatus;

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

	private static final System.Logger log = System.getLogger(QuorumLockEngine.class.getName());

	private final List<RedisNode> nodes;

	private final int quorum;

	private final String keyPrefix;

	private final LockOptions defaults;

	private final Map<String, LockOptions> instances;

	private final long nodeTimeoutNanos;

	private final long retryMinNanos;

	private final long retryMaxNanos;

	private final Validity validity;

	private final Listeners listener;

	/** Keeps callers' code and blocking calls off the I/O and engine threads. */
	private final CallerThreads threads;

	/** Single mode on a Redis Cluster: lock keys must hash to one non-empty tag. */
	private final boolean cluster;

	private final ScheduledThreadPoolExecutor scheduler;

	/** Round deadlines: armed and cancelled on every round, so on a timing wheel. */
	private final Deadlines deadlines;

	private final ClientResources resources;

	private final boolean ownsResources;

	private final Tokens tokens = new Tokens(new SecureRandom());

	private final LocalGates gates = new LocalGates();

	private final ReleaseSignals signals;

	private final LongSupplier nanoClock;

	private final OnLeaseLost onLeaseLost;

	/** The restart guard in force, fixed at build time. */
	private final RestartGuard guard;

	private final int syncReplicas;

	private final LeaseWatchdog watchdog = new LeaseWatchdog(this);

	private final Fencing fencing;

	private final int maxKeyLength;

	/**
	 * Tells one master listed twice from two masters, by run_id; null in single mode.
	 */
	private final SameServer sameServer;

	private QuorumLockEngine(Builder builder, List<RedisURI> uris, RestartGuard guard) {
		this.keyPrefix = builder.keyPrefix;
		this.defaults = builder.defaults.orElse(Builder.BUILT_IN);
		this.instances = Map.copyOf(builder.instances);
		this.nodeTimeoutNanos = builder.nodeTimeout.toNanos();
		this.retryMinNanos = builder.retryMin.toNanos();
		this.retryMaxNanos = builder.retryMax.toNanos();
		this.validity = new Validity(builder.clockDriftFactor);
		this.threads = new CallerThreads((builder.asyncExecutor != null) ? builder.asyncExecutor
				: new CompletableFuture<Void>().defaultExecutor());
		this.listener = new Listeners(builder.listeners, this.threads);
		this.cluster = !builder.clusterSeeds.isEmpty();
		this.nanoClock = builder.nanoClock;
		this.onLeaseLost = builder.onLeaseLost;
		this.guard = guard;
		this.syncReplicas = builder.syncReplicas;
		this.fencing = new Fencing(this, builder.fencingCounterTtl.toMillis());
		this.maxKeyLength = builder.maxKeyLength;
		this.scheduler = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "quorumlock-scheduler");
			thread.setDaemon(true);
			return this.threads.register(thread);
		});
		this.scheduler.setRemoveOnCancelPolicy(true);
		this.deadlines = new Deadlines("quorumlock-deadlines", this.threads::register);
		this.ownsResources = builder.clientResources == null;
		this.resources = this.ownsResources ? DefaultClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(2), 2, TimeUnit.MILLISECONDS))
			.build() : builder.clientResources;
		Duration commandTimeout = builder.nodeTimeout.multipliedBy(10).compareTo(Duration.ofSeconds(1)) > 0
				? builder.nodeTimeout.multipliedBy(10) : Duration.ofSeconds(1);
		List<RedisNode> list = new ArrayList<>(uris.size());
		ReleaseSignals[] signalsRef = new ReleaseSignals[1];
		String probeKey = LockKeys.lockKey(this.keyPrefix, "", "quorumlock:probe");
		for (RedisURI uri : uris) {
			String[] address = { uri.getHost() + ":" + uri.getPort() };
			list.add(new RedisNode(uri, this.resources, builder.sslOptions, commandTimeout, commandTimeout,
					this.scheduler, this.nanoClock, probeKey, (channel) -> signalsRef[0].onMessage(channel),
					(error) -> this.listener.onNodeError(address[0], error), this.syncReplicas > 0));
		}
		if (!builder.clusterSeeds.isEmpty()) {
			// single mode on a Redis Cluster: the whole cluster is the one node
			RedisNode[] cluster = new RedisNode[1];
			cluster[0] = RedisNode.cluster(builder.clusterSeeds, this.resources, builder.sslOptions, commandTimeout,
					commandTimeout, this.scheduler, this.nanoClock, probeKey,
					(channel) -> signalsRef[0].onMessage(channel),
					(error) -> this.listener.onNodeError(cluster[0].address(), error));
			list.add(cluster[0]);
		}
		this.nodes = List.copyOf(list);
		this.quorum = this.nodes.size() / 2 + 1;
		this.sameServer = (this.nodes.size() > 1) ? new SameServer(this.nodes) : null;
		this.signals = new ReleaseSignals(this.nodes);
		signalsRef[0] = this.signals;
		// Give the first connections a moment so that the first request finds them; a
		// node
		// that is down now keeps retrying in the background and is not an error.
		CompletableFuture<?>[] first = this.nodes.stream().map(RedisNode::connect).toArray(CompletableFuture[]::new);
		try {
			CompletableFuture.allOf(first).get(commandTimeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | java.util.concurrent.TimeoutException ex) {
			// reported per node through onNodeError
		}
		String sameServers = (this.sameServer != null) ? this.sameServer.startUpRefusal() : null;
		if (sameServers != null) {
			close();
			throw new IllegalArgumentException(sameServers);
		}
		this.scheduler.scheduleWithFixedDelay(() -> {
			this.nodes.forEach((node) -> {
				node.refreshIfUnknown();
				node.redoPending();
				node.unsubscribeUnwanted();
			});
			if (this.sameServer != null) {
				this.sameServer.check();
			}
		}, 1, 1, TimeUnit.SECONDS);
	}

	/**
	 * Whether a node may vote now: the restart guard lets it, and in quorum mode its
	 * server's run_id is known and no earlier node reaches the same server.
	 */
	private boolean votes(RedisNode node, long guardNanos) {
		return node.isVoting(guardNanos) && (this.sameServer == null || this.sameServer.votes(node));
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
		return Duration.ofNanos(rejoinDelayNanos());
	}

	long rejoinDelayNanos() {
		return this.guard.nanos();
	}

	/**
	 * Start building an engine.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Number of nodes a grant needs: N/2+1.
	 * @return the quorum
	 */
	@Override
	public int quorum() {
		return this.quorum;
	}

	@Override
	public String mode() {
		return (this.nodes.size() == 1) ? "single" : "quorum";
	}

	@Override
	public List<RegistryStatus.Node> nodes() {
		long guard = rejoinDelayNanos();
		List<RegistryStatus.Node> states = new ArrayList<>(this.nodes.size());
		for (RedisNode node : this.nodes) {
			long uptime = node.uptimeNanos();
			boolean voting = votes(node, guard);
			long heldBack = node.isVoting(guard) ? 0 : (uptime < 0) ? guard : guard - uptime;
			RedisNode same = (this.sameServer != null) ? this.sameServer.sameServerAs(node) : null;
			states.add(new RegistryStatus.Node(node.address(), node.isConnected(),
					Duration.ofNanos(Math.max(0, node.lastLatencyNanos())), Duration.ofNanos(uptime), voting,
					Duration.ofNanos(Math.max(0, heldBack)), (same != null) ? same.address() : null));
		}
		return states;
	}

	@Override
	public List<RegistryStatus.HeldLease> leases() {
		long now = nanoTime();
		java.time.Instant wallNow = java.time.Instant.now();
		List<RegistryStatus.HeldLease> held = new ArrayList<>();
		for (RedisLease lease : this.gates.leases()) {
			if (lease.isReleased()) {
				continue;
			}
			held.add(new RegistryStatus.HeldLease(lease.request().request().label(), lease.request().redisKeys(),
					wallNow.minusNanos(now - lease.acquiredAt()), lease.remaining(), lease.knownFencingToken(),
					lease.holds().get()));
		}
		return held;
	}

	@Override
	public int forceUnlock(String redisKey) {
		if (redisKey == null || !redisKey.startsWith(this.keyPrefix) || redisKey.length() == this.keyPrefix.length()) {
			throw new IllegalArgumentException(
					"force-unlock: '" + redisKey + "' is not a lock key under the prefix '" + this.keyPrefix + "'");
		}
		log.log(Level.WARNING, "force-unlock of " + redisKey + " requested by an operator");
		String channel = LockKeys.channel(redisKey);
		// every node's answer counts here, so the round waits for all of them (or the
		// deadline)
		Round.Tally tally = runRound(this.nodes.size(), (node) -> node.eval(Script.FORCE_RELEASE, redisKey, channel),
				ONE, this.nodeTimeoutNanos)
			.join();
		return tally.yes();
	}

	@Override
	public List<String> keysWithoutTtl(int limit) {
		String pattern = this.keyPrefix.replaceAll("([*?\\[\\]\\\\])", "\\\\$1") + "*";
		List<String> leaks = new ArrayList<>();
		List<CompletableFuture<List<String>>> scans = this.nodes.stream()
			.map((node) -> node.keysWithoutTtl(pattern, limit, 100))
			.toList();
		for (int i = 0; i < scans.size(); i++) {
			try {
				for (String key : scans.get(i).get(10, TimeUnit.SECONDS)) {
					if (leaks.size() < limit) {
						leaks.add(this.nodes.get(i).address() + " " + key);
					}
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
			catch (ExecutionException | java.util.concurrent.TimeoutException ex) {
				leaks.add(this.nodes.get(i).address() + " scan failed: " + RedisNode.unwrap(ex).getMessage());
			}
		}
		return leaks;
	}

	/**
	 * Addresses ({@code host:port}, never credentials) of the nodes, in configuration
	 * order.
	 * @return the node addresses
	 */
	public List<String> nodeAddresses() {
		return this.nodes.stream().map(RedisNode::address).toList();
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
		ResolvedRequest resolved;
		try {
			resolved = resolve(request);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		RedisLease held;
		try {
			held = heldInScope(resolved);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (held != null) {
			// called within the scope of a lease of these keys (an annotated method's
			// body, an execute action, a Lock view's hold): a re-entry, as when blocking
			try {
				return CompletableFuture.completedFuture(reenter(held));
			}
			catch (RuntimeException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}
		// the caller's continuations run off the I/O thread that completes the grant; a
		// lease the caller can no longer receive is released at once
		CompletableFuture<RedisLease> result = start(resolved);
		return Handoff.view(this, result,
				this.threads.<Lease>handOver(result, (lease) -> releaseAsync((RedisLease) lease)));
	}

	@Override
	public <T> T execute(LockRequest request, Callable<T> action) {
		Lease lease = acquire(request);
		T value;
		try (CurrentLease.Scope scope = CurrentLease.bind(lease)) {
			value = action.call();
		}
		catch (RuntimeException | Error ex) {
			releaseAfter(lease, ex);
			throw ex;
		}
		catch (Exception ex) {
			UndeclaredThrowableException wrapped = new UndeclaredThrowableException(ex,
					"checked exception from the action run under " + resolveQuietly(request));
			releaseAfter(lease, wrapped);
			throw wrapped;
		}
		lease.release(); // a loss while the action ran is the outcome (on-lease-lost:
							// throw)
		return value;
	}

	/**
	 * Release after the action failed: the action's failure stays the outcome, a release
	 * failure (such as the lease loss) is kept as suppressed.
	 */
	private static void releaseAfter(Lease lease, Throwable failure) {
		try {
			lease.release();
		}
		catch (RuntimeException releaseFailure) {
			failure.addSuppressed(releaseFailure);
		}
	}

	@Override
	public Lock asLock(String key) {
		LockRequest.of(key);
		return new LockView(this, key);
	}

	/**
	 * Blocking acquisition shared by every blocking entry point; re-entrant within the
	 * scope of a lease of the same keys on this thread (see {@link #heldInScope}).
	 */
	Lease acquireBlocking(LockRequest request, boolean interruptible) {
		ResolvedRequest resolved = resolve(request);
		RedisLease held = heldInScope(resolved);
		if (held != null) {
			return reenter(held);
		}
		this.threads.checkMayBlock("acquire of " + resolved.describe(), "acquireAsync");
		CompletableFuture<RedisLease> future = start(resolved);
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return future.get();
				}
				catch (InterruptedException ex) {
					if (interruptible) {
						Handoff.abandon(this, future); // a grant racing the interrupt
						Thread.currentThread().interrupt();
						throw new LockNotAcquiredException(
								resolved.describe() + ": not acquired, the waiting thread was interrupted");
					}
					interrupted = true;
				}
				catch (ExecutionException ex) {
					throw forCaller(ex.getCause());
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private CompletableFuture<RedisLease> start(ResolvedRequest resolved) {
		long now = nanoTime();
		return new Acquisition(this, resolved, this.tokens.next(), now).start();
	}

	/**
	 * Rethrow an acquisition failure on the caller's thread, as the same type with the
	 * caller's stack trace and the original as cause.
	 */
	private static RuntimeException forCaller(Throwable failure) {
		if (failure instanceof QuorumUnavailableException ex) {
			QuorumUnavailableException copy = new QuorumUnavailableException(ex.getMessage());
			copy.initCause(ex);
			return copy;
		}
		if (failure instanceof LockNotAcquiredException ex) {
			LockNotAcquiredException copy = new LockNotAcquiredException(ex.getMessage());
			copy.initCause(ex);
			return copy;
		}
		if (failure instanceof RuntimeException ex) {
			return ex;
		}
		return new UndeclaredThrowableException(failure);
	}

	/** A hold on a lease in scope, unless it no longer protects anything. */
	private Lease reenter(RedisLease held) {
		if (!held.isValid()) {
			// never hand out a hold on a lease that no longer protects anything
			LeaseLostException lost = (held.lost() != null) ? held.lost()
					: lose(held, "expired before this thread re-entered it");
			throw new LeaseLostException(lost.getMessage() + "; release it before locking again");
		}
		return new ReentrantHold(held);
	}

	/**
	 * The lease held on every key of the request within whose scope this thread runs, or
	 * null if there is none.
	 */
	RedisLease heldInScope(LockRequest request) {
		return heldInScope(resolve(request));
	}

	/**
	 * Re-entry scope. A lease is in scope on this thread while it is unreleased and
	 * either bound to {@link CurrentLease} here (by the aspect for the call of an
	 * annotated method, or by {@link #execute} for its action: scopes that end with the
	 * call, on this thread) or held through a {@link LockView} by this thread (a Lock is
	 * owned by the thread that locked it and unlocked only by it, until which it cannot
	 * be handed off). A lease returned by {@link #acquire}, {@link #tryAcquire} or
	 * {@link #acquireAsync} belongs to no thread: it may be handed on and released
	 * anywhere, so the thread that acquired it cannot tell when its work on it ends.
	 */
	private RedisLease heldInScope(ResolvedRequest resolved) {
		Thread me = Thread.currentThread();
		RedisLease held = null;
		int count = 0;
		for (String key : resolved.redisKeys()) {
			LocalGates.Gate gate = this.gates.gate(key);
			RedisLease lease = (gate != null) ? gate.lease : null;
			if (lease != null && !lease.isReleased() && (lease.owner() == me || isBound(lease))) {
				if (held != null && held != lease) {
					throw partialReentry(resolved);
				}
				held = lease;
				count++;
			}
		}
		if (count > 0 && count < resolved.redisKeys().size()) {
			throw partialReentry(resolved);
		}
		return held;
	}

	private static boolean isBound(RedisLease lease) {
		return CurrentLease
			.anyBound((bound) -> bound == lease || (bound instanceof ReentrantHold hold && hold.lease() == lease));
	}

	private static IllegalStateException partialReentry(ResolvedRequest resolved) {
		return new IllegalStateException(resolved.describe() + ": this thread already holds some of these keys "
				+ "under another lease; lock the whole set in the outermost call so keys are taken in sorted order");
	}

	/** Resolve options (request, then instance by name, then defaults) and check them. */
	ResolvedRequest resolve(LockRequest request) {
		LockOptions options = request.options()
			.orElse(this.instances.getOrDefault(request.name(), LockOptions.none()))
			.orElse(this.defaults);
		Duration lease = options.lease().orElseThrow();
		String[] redisKeys = new String[request.keys().size()];
		for (int i = 0; i < redisKeys.length; i++) {
			String key = request.keys().get(i);
			if (key.length() > this.maxKeyLength) {
				throw new LockKeyException(tooLong(request, key));
			}
			redisKeys[i] = this.cluster ? LockKeys.clusterLockKey(this.keyPrefix, request.name(), key)
					: LockKeys.lockKey(this.keyPrefix, request.name(), key);
		}
		ResolvedRequest resolved = new ResolvedRequest(request, List.of(redisKeys), lease,
				options.waitAtMost().orElseThrow(), options.renew().orElseThrow(), options.holdAtMost(),
				options.holdAtLeast().orElse(Duration.ZERO));
		LockRules.check(resolved.describe(), options, Duration.ofNanos(this.nodeTimeoutNanos));
		this.guard.check(resolved);
		return resolved;
	}

	private String tooLong(LockRequest request, String key) {
		String name = request.name().isEmpty() ? "" : "'" + request.name() + "' ";
		return "lock " + name + "key '" + key.substring(0, Math.min(32, key.length())) + "...' is " + key.length()
				+ " characters long, above the maximum of " + this.maxKeyLength
				+ " (quorumlock.max-key-length, QuorumLockEngine.Builder.maxKeyLength)";
	}

	private String resolveQuietly(LockRequest request) {
		try {
			return resolve(request).describe();
		}
		catch (RuntimeException ex) {
			return request.toString();
		}
	}

	/**
	 * Release a lease, waiting for the nodes unless called on an I/O or engine thread
	 * (where waiting could stall the very thread that completes the release).
	 */
	void release(RedisLease lease) {
		CompletableFuture<Void> released = releaseAsync(lease);
		if (this.threads.isEngineThread(Thread.currentThread())) {
			return;
		}
		try {
			released.join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
	}

	/**
	 * Release a lease without blocking: compare-and-delete on every node in parallel,
	 * then hand its keys to the next local waiter. Completes when the nodes answered or
	 * timed out; exceptionally with the {@link LeaseLostException} if the lease had been
	 * lost and the policy is to throw. The keys are deleted either way where this token
	 * still holds them, and nothing else is.
	 */
	CompletableFuture<Void> releaseAsync(RedisLease lease) {
		if (lease.isReleased()) {
			return CompletableFuture.completedFuture(null);
		}
		long now = nanoTime();
		LeaseLostException lost = lease.lost();
		if (lost == null && Validity.remaining(lease.validUntil(), now) <= 0) {
			lost = lose(lease, LeaseWatchdog.expired(lease.request()) + ", "
					+ TimeUnit.NANOSECONDS.toMillis(now - lease.validUntil()) + " ms before its release");
		}
		if (!lease.markReleased()) {
			return CompletableFuture.completedFuture(null);
		}
		lease.owner(null); // a Lock view's hold ends here, whichever thread releases
		lease.cancelWatchdog();
		List<String> keys = lease.request().redisKeys();
		long leaseNanos = lease.request().lease().toNanos();
		long keepMillis = (lost == null) ? MinimumHold.remainderMillis(lease, now) : 0;
		CompletableFuture<?> done;
		if (keys.size() == 1) {
			done = endOnAll(keys.get(0), lease.token(), keepMillis, leaseNanos);
		}
		else {
			CompletableFuture<?>[] rounds = new CompletableFuture<?>[keys.size()];
			for (int i = 0; i < rounds.length; i++) {
				rounds[i] = endOnAll(keys.get(i), lease.token(), keepMillis, leaseNanos);
			}
			done = CompletableFuture.allOf(rounds);
		}
		LeaseLostException loss = lost;
		CompletableFuture<Void> released = new CompletableFuture<>();
		done.whenComplete((ok, error) -> {
			keys.forEach(this.gates::leave);
			// the listeners hear of the release before the releasing caller returns
			this.listener.onReleased(lease.request().request(), lease,
					Duration.ofNanos(nanoTime() - lease.acquiredAt()), () -> {
						if (loss != null && this.onLeaseLost == OnLeaseLost.THROW) {
							released.completeExceptionally(loss);
						}
						else {
							released.complete(null);
						}
					});
		});
		return released;
	}

	/** {@link #releaseAsync} for a caller, whose continuations must not run on I/O. */
	CompletableFuture<Void> releaseForCaller(RedisLease lease) {
		return this.threads.handOver(releaseAsync(lease));
	}

	/**
	 * Mark a lease lost (once): it turns invalid at once, the loss is logged and the
	 * listeners are told. Returns the loss, for the caller to throw.
	 */
	LeaseLostException lose(RedisLease lease, String why) {
		LeaseLostException loss = new LeaseLostException(lease.request().describe() + ": lease lost, " + why);
		if (lease.markLost(loss)) {
			log.log(Level.WARNING, loss.getMessage());
			this.listener.onLost(lease.request().request(), lease, loss);
			return loss;
		}
		LeaseLostException earlier = lease.lost();
		return (earlier != null) ? earlier : loss;
	}

	/**
	 * End a lease's hold on a key: delete it, or, while {@code holdAtLeast} has
	 * {@code keepMillis} left, let it expire then without waking anyone.
	 */
	private CompletableFuture<Round.Tally> endOnAll(String key, String token, long keepMillis, long leaseNanos) {
		return (keepMillis > 0) ? MinimumHold.keepOnAll(this, key, token, keepMillis)
				: releaseOnAll(key, token, leaseNanos);
	}

	/**
	 * Compare-and-delete a key for a token on every node in parallel, voting or not. A
	 * node that fails it without a reply (its connection down) is sent it again when it
	 * is back, while a SET of this lease could still be alive there.
	 */
	CompletableFuture<Round.Tally> releaseOnAll(String key, String token, long leaseNanos) {
		String channel = LockKeys.channel(key);
		return round((node) -> node.evalRedone(Script.RELEASE, leaseNanos, key, token, channel), ONE);
	}

	/** A script's answer that it took effect. */
	static final Predicate<Long> ONE = (answer) -> answer == 1L;

	/**
	 * How late Redis may answer a {@code WAIT} past its own timeout: a server checks
	 * blocked clients' timeouts on its timer, every {@code 1000 / hz} ms (100 ms at the
	 * default {@code hz 10}), so a 100 ms {@code WAIT} can answer after nearly 200 ms.
	 */
	private static final long WAIT_TIMER_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/**
	 * One acquisition round for a key: {@code SET NX PX} on every voting node, followed
	 * by {@code WAIT} where replicas must acknowledge it (the deadline then covers both,
	 * plus the server's timer slack, so a refused {@code WAIT} is heard as a refusal and
	 * not as silence; the time spent still comes off the validity).
	 */
	CompletableFuture<Round.Tally> acquireRound(String key, String token, long leaseMillis) {
		if (this.syncReplicas == 0) {
			return voterRound((node) -> node.setIfAbsent(key, token, leaseMillis), RedisNode::isSet,
					this.nodeTimeoutNanos);
		}
		return voterRound((node) -> node.setIfAbsent(key, token, leaseMillis, this.syncReplicas, waitMillis()),
				RedisNode::isSet, writeRoundNanos());
	}

	/**
	 * A round of a script whose writes a later grant relies on (an extension, a fencing
	 * increment or raise) on the voting nodes. With sync-replicas each node runs it on
	 * its replicated-writes connection, followed there by {@code WAIT}, and votes only
	 * once the replicas acknowledged it, so that a failover to a replica keeps it.
	 * @param wrote whether an answer means the script wrote something to wait for (no
	 * side effects)
	 * @param took whether an answer is a yes vote
	 */
	CompletableFuture<Round.Tally> writeRound(Script script, String[] keys, Predicate<Long> wrote, Predicate<Long> took,
			String... args) {
		if (this.syncReplicas == 0) {
			return voterRound((node) -> node.eval(script, keys, args), took, this.nodeTimeoutNanos);
		}
		return voterRound((node) -> node.evalReplicated(script, keys, wrote, this.syncReplicas, waitMillis(), args),
				took, writeRoundNanos());
	}

	/** The {@code WAIT} timeout: the node timeout. */
	private long waitMillis() {
		return Math.max(1, TimeUnit.NANOSECONDS.toMillis(this.nodeTimeoutNanos));
	}

	/**
	 * The deadline of a write round: with sync-replicas it covers the write, the
	 * {@code WAIT} and the server's timer slack, so that a refused {@code WAIT} is heard
	 * as a refusal and not as silence.
	 */
	long writeRoundNanos() {
		return (this.syncReplicas == 0) ? this.nodeTimeoutNanos : 2 * this.nodeTimeoutNanos + WAIT_TIMER_SLACK_NANOS;
	}

	/**
	 * Fan a command out to every node with the node timeout as the deadline.
	 * @param took whether a node's answer is a yes vote
	 */
	<T> CompletableFuture<Round.Tally> round(Function<RedisNode, ? extends CompletionStage<T>> command,
			Predicate<? super T> took) {
		return runRound(this.quorum, command, took, this.nodeTimeoutNanos);
	}

	/**
	 * Fan a command out to the nodes the restart guard lets vote; the others are neither
	 * sent the command nor counted.
	 * @param took whether a node's answer is a yes vote
	 */
	<T> CompletableFuture<Round.Tally> voterRound(Function<RedisNode, ? extends CompletionStage<T>> command,
			Predicate<? super T> took) {
		return voterRound(command, took, this.nodeTimeoutNanos);
	}

	private <T> CompletableFuture<Round.Tally> voterRound(Function<RedisNode, ? extends CompletionStage<T>> command,
			Predicate<? super T> took, long timeoutNanos) {
		long guard = rejoinDelayNanos();
		if (guard <= 0 && this.sameServer == null) {
			return runRound(this.quorum, command, took, timeoutNanos, null);
		}
		// checked when sent, and again by the round when each node answers
		return runRound(this.quorum,
				(node) -> votes(node, guard) ? command.apply(node)
						: CompletableFuture.<T>failedFuture(heldBack(node, guard)),
				took, timeoutNanos, (node) -> votes(node, guard));
	}

	/**
	 * Every round goes through here, so that each failing node is reported once per
	 * round.
	 */
	private <T> CompletableFuture<Round.Tally> runRound(int votesNeeded,
			Function<RedisNode, ? extends CompletionStage<T>> command, Predicate<? super T> took, long timeoutNanos) {
		return runRound(votesNeeded, command, took, timeoutNanos, null);
	}

	private <T> CompletableFuture<Round.Tally> runRound(int votesNeeded,
			Function<RedisNode, ? extends CompletionStage<T>> command, Predicate<? super T> took, long timeoutNanos,
			Predicate<RedisNode> votesNow) {
		return Round.run(this.nodes, votesNeeded, command, took, timeoutNanos, votesNow, this.deadlines,
				(node, error) -> this.listener.onNodeError(node.address(), error));
	}

	private NodeHeldBackException heldBack(RedisNode node, long guardNanos) {
		RedisNode same = (this.sameServer != null) ? this.sameServer.sameServerAs(node) : null;
		if (same != null) {
			return new NodeHeldBackException("same Redis server as " + same.address() + " (run_id " + node.runId()
					+ "), which votes for it: counted once");
		}
		if (node.isVoting(guardNanos) && node.runId() == null) {
			return new NodeHeldBackException(
					"held back until its run_id is read (to count a master listed twice once)");
		}
		long uptime = node.uptimeNanos();
		long guardSeconds = TimeUnit.NANOSECONDS.toSeconds(guardNanos);
		if (uptime < 0) {
			return new NodeHeldBackException(
					"held back by the restart guard until its uptime is read (rejoin-delay " + guardSeconds + " s)");
		}
		long left = TimeUnit.NANOSECONDS.toSeconds(guardNanos - uptime + 999_999_999);
		return new NodeHeldBackException(
				"held back by the restart guard for another " + left + " s (rejoin-delay " + guardSeconds + " s)");
	}

	static String failures(Round.Tally tally) {
		return tally.failures().isEmpty() ? "" : " (" + String.join("; ", tally.failures()) + ")";
	}

	/** The lease's fencing token, computed on the first call, for a caller. */
	CompletableFuture<Long> fencingTokenAsync(RedisLease lease) {
		CompletableFuture<Long> token = lease.fencing(() -> this.fencing.token(lease));
		return token.isDone() ? token.copy() : this.threads.handOver(token);
	}

	/** The lease's fencing token, computed on the first call. */
	long fencingToken(RedisLease lease) {
		CompletableFuture<Long> token = lease.fencing(() -> this.fencing.token(lease));
		if (!token.isDone()) {
			this.threads.checkMayBlock("fencingToken() of " + lease.request().describe(), "fencingTokenAsync()");
		}
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return token.get();
				}
				catch (InterruptedException ex) {
					interrupted = true; // bounded by two rounds: finish, then restore the
										// flag
				}
				catch (ExecutionException ex) {
					Throwable cause = RedisNode.unwrap(ex.getCause());
					if (cause instanceof LeaseLostException lost) {
						LeaseLostException copy = new LeaseLostException(lost.getMessage());
						copy.initCause(lost);
						throw copy;
					}
					throw forCaller(cause);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	int nodeCount() {
		return this.nodes.size();
	}

	LeaseWatchdog watchdog() {
		return this.watchdog;
	}

	long nanoTime() {
		return this.nanoClock.getAsLong();
	}

	/** A jittered retry delay in [retry min, retry max]. */
	long retryDelayNanos() {
		if (this.retryMaxNanos <= this.retryMinNanos) {
			return this.retryMinNanos;
		}
		return ThreadLocalRandom.current().nextLong(this.retryMinNanos, this.retryMaxNanos + 1);
	}

	long nodeTimeoutNanos() {
		return this.nodeTimeoutNanos;
	}

	Validity validity() {
		return this.validity;
	}

	ScheduledExecutorService scheduler() {
		return this.scheduler;
	}

	Deadlines deadlines() {
		return this.deadlines;
	}

	/**
	 * Run a task on the scheduler thread, from a timer that must not run it itself; after
	 * {@link #close()} the task is dropped, as the scheduler's own pending tasks are.
	 */
	void runOnScheduler(Runnable task) {
		try {
			this.scheduler.execute(task);
		}
		catch (java.util.concurrent.RejectedExecutionException ex) {
			// closed: nothing is watched any more
		}
	}

	LocalGates gates() {
		return this.gates;
	}

	ReleaseSignals signals() {
		return this.signals;
	}

	Listeners listener() {
		return this.listener;
	}

	/**
	 * Close every connection and stop the engine's threads. Leases still held are left to
	 * expire on the nodes.
	 */
	@Override
	public void close() {
		this.scheduler.shutdownNow();
		this.deadlines.close();
		this.listener.close();
		this.nodes.forEach(RedisNode::close);
		boolean interrupted = false;
		try {
			this.scheduler.awaitTermination(2, TimeUnit.SECONDS);
			if (this.ownsResources) {
				this.resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			interrupted = true;
		}
		catch (ExecutionException | java.util.concurrent.TimeoutException ex) {
			log.log(Level.WARNING, "Lettuce resources did not shut down cleanly", ex);
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Builds a {@link QuorumLockEngine}. Every setting has a default except the nodes.
	 */
	public static final class Builder {

		/** Default node timeout. */
		public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(50);

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

		/** Default longest lock key, in characters. */
		public static final int DEFAULT_MAX_KEY_LENGTH = 512;

		static final LockOptions BUILT_IN = LockOptions.none()
			.lease(DEFAULT_LEASE)
			.waitAtMost(Duration.ZERO)
			.renew(true);

		private final List<String> uris = new ArrayList<>();

		private final List<RedisURI> redisUris = new ArrayList<>();

		private final List<RedisURI> clusterSeeds = new ArrayList<>();

		private String keyPrefix = DEFAULT_KEY_PREFIX;

		private LockOptions defaults = LockOptions.none();

		private final Map<String, LockOptions> instances = new LinkedHashMap<>();

		private Duration nodeTimeout = DEFAULT_NODE_TIMEOUT;

		private double clockDriftFactor = DEFAULT_CLOCK_DRIFT_FACTOR;

		private Duration retryMin = DEFAULT_RETRY_MIN;

		private Duration retryMax = DEFAULT_RETRY_MAX;

		private final List<LockListener> listeners = new ArrayList<>();

		private ClientResources clientResources;

		private LongSupplier nanoClock = System::nanoTime;

		private OnLeaseLost onLeaseLost = OnLeaseLost.THROW;

		private Duration rejoinDelay;

		private final List<Duration> declaredLeases = new ArrayList<>();

		private int syncReplicas;

		private Duration fencingCounterTtl = DEFAULT_FENCING_COUNTER_TTL;

		private int maxKeyLength = DEFAULT_MAX_KEY_LENGTH;

		private SslOptions sslOptions;

		private java.util.concurrent.Executor asyncExecutor;

		private Builder() {
		}

		/**
		 * Longest lock key accepted, in characters: the key a request or an annotation
		 * gives, before the prefix and the name are added. A longer key is refused with a
		 * {@link LockKeyException} before anything is sent to Redis.
		 * @param maxKeyLength a positive number (default 512)
		 * @return this builder
		 */
		public Builder maxKeyLength(int maxKeyLength) {
			this.maxKeyLength = maxKeyLength;
			return this;
		}

		/**
		 * TLS settings for the {@code rediss://} nodes: the trust store (for a private
		 * CA), a client certificate, protocols and cipher suites. Without it Lettuce uses
		 * the JDK's default trust store. Nodes given as {@code redis://} stay plain text.
		 * @param sslOptions the Lettuce TLS options
		 * @return this builder
		 */
		public Builder sslOptions(SslOptions sslOptions) {
			this.sslOptions = requireNonNull(sslOptions, "sslOptions");
			return this;
		}

		/**
		 * Where callers' continuations run when a future the engine hands out
		 * ({@code acquireAsync}, {@code releaseAsync}, {@code fencingTokenAsync}) would
		 * otherwise complete on a Redis I/O thread or an engine thread. Default:
		 * {@code CompletableFuture}'s default async executor (the common pool). Code
		 * never runs there when the future completes on a caller's thread.
		 * @param asyncExecutor the executor
		 * @return this builder
		 */
		public Builder asyncExecutor(java.util.concurrent.Executor asyncExecutor) {
			this.asyncExecutor = requireNonNull(asyncExecutor, "asyncExecutor");
			return this;
		}

		/**
		 * What a release reports when the lease was lost before it (default: throw).
		 * @param onLeaseLost the policy
		 * @return this builder
		 */
		public Builder onLeaseLost(OnLeaseLost onLeaseLost) {
			this.onLeaseLost = requireNonNull(onLeaseLost, "onLeaseLost");
			return this;
		}

		/**
		 * Restart guard: a node that restarted less than this long ago does not count
		 * toward a quorum. Unset means the longest declared lease: the default lease,
		 * every {@link #instance instance} lease and every {@link #declaredLeases
		 * declared lease}, fixed at {@link #build()}. A positive value shorter than one
		 * of those leases is refused at build time; zero turns the guard off. Single mode
		 * (one node) has no guard. Every client of the same masters needs the same guard.
		 * @param rejoinDelay zero or more
		 * @return this builder
		 */
		public Builder rejoinDelay(Duration rejoinDelay) {
			this.rejoinDelay = requireNonNull(rejoinDelay, "rejoinDelay");
			return this;
		}

		/**
		 * Leases the application will ask for beyond the default and the instance leases
		 * (the auto-configuration passes every {@code @DistributedLock} method's
		 * effective lease), so that the restart guard covers them. The guard is fixed at
		 * {@link #build()} from what is declared, so it is the same on every instance of
		 * a deployment whatever each has run; in quorum mode with the guard on, a request
		 * whose lease is longer than the guard in force is refused.
		 * @param leases positive durations; added to those given before
		 * @return this builder
		 */
		public Builder declaredLeases(java.util.Collection<Duration> leases) {
			for (Duration lease : requireNonNull(leases, "leases")) {
				if (requireNonNull(lease, "lease").isNegative() || lease.isZero()) {
					throw new IllegalArgumentException("declaredLeases: a lease must be positive, was " + lease);
				}
				this.declaredLeases.add(lease);
			}
			return this;
		}

		/**
		 * Replicas that must acknowledge each grant (Redis {@code WAIT}) before it
		 * counts; zero, the default, waits for none.
		 * @param syncReplicas zero or more
		 * @return this builder
		 */
		public Builder syncReplicas(int syncReplicas) {
			this.syncReplicas = syncReplicas;
			return this;
		}

		/**
		 * Time to live of each per-key fencing counter after its last use.
		 * @param fencingCounterTtl a positive duration
		 * @return this builder
		 */
		public Builder fencingCounterTtl(Duration fencingCounterTtl) {
			this.fencingCounterTtl = requireNonNull(fencingCounterTtl, "fencingCounterTtl");
			return this;
		}

		/**
		 * Add nodes by URI ({@code redis://[user:password@]host:port[/db]} or
		 * {@code rediss://} for TLS), checked strictly: a scheme, a host and a numeric
		 * port.
		 * @param uris the node URIs
		 * @return this builder
		 */
		public Builder nodes(String... uris) {
			return nodes(List.of(uris));
		}

		/**
		 * Add nodes by URI.
		 * @param uris the node URIs
		 * @return this builder
		 * @see #nodes(String...)
		 */
		public Builder nodes(List<String> uris) {
			this.uris.addAll(uris);
			return this;
		}

		/**
		 * Add nodes as Lettuce {@link RedisURI}s (for settings a URI string cannot
		 * carry).
		 * @param uris the nodes
		 * @return this builder
		 */
		public Builder redisUris(List<RedisURI> uris) {
			this.redisUris.addAll(uris);
			return this;
		}

		/**
		 * Single mode on a Redis Cluster: lock on the cluster reached through these seed
		 * nodes (any of its nodes; Lettuce discovers the rest and follows the topology)
		 * instead of on listed nodes. Each lock is one key in one hash slot, so the
		 * cluster acts as one node with quorum 1. Cannot be combined with nodes, with
		 * {@link #syncReplicas(int) sync-replicas} or with a key prefix containing '{' or
		 * '}'.
		 * @param seeds seed nodes ({@code redis://} or {@code rediss://}, with any
		 * credentials)
		 * @return this builder
		 */
		public Builder cluster(List<RedisURI> seeds) {
			requireNonNull(seeds, "seeds").forEach((seed) -> requireNonNull(seed, "cluster seed"));
			this.clusterSeeds.addAll(seeds);
			return this;
		}

		/**
		 * Single mode on a Redis Cluster, with seed nodes by URI, checked as strictly as
		 * {@link #nodes(String...)}.
		 * @param seeds seed node URIs, for example {@code redis://redis-1:7000}
		 * @return this builder
		 * @see #cluster(List)
		 */
		public Builder cluster(String... seeds) {
			List<RedisURI> parsed = new ArrayList<>(seeds.length);
			for (String seed : seeds) {
				parsed.add(NodeUri.parse(seed));
			}
			return cluster(parsed);
		}

		/**
		 * Prefix of every Redis key.
		 * @param keyPrefix the prefix, for example {@code lock:}
		 * @return this builder
		 */
		public Builder keyPrefix(String keyPrefix) {
			this.keyPrefix = requireNonNull(keyPrefix, "keyPrefix");
			return this;
		}

		/**
		 * Defaults for options a request does not set (built in: lease 30 s, no wait,
		 * renew, no bound on renewal).
		 * @param defaults the defaults
		 * @return this builder
		 */
		public Builder defaults(LockOptions defaults) {
			this.defaults = requireNonNull(defaults, "defaults");
			return this;
		}

		/**
		 * Options for requests with the given name, between the request's and the
		 * defaults.
		 * @param name the lock name
		 * @param options the options
		 * @return this builder
		 */
		public Builder instance(String name, LockOptions options) {
			this.instances.put(requireNonNull(name, "name"), requireNonNull(options, "options"));
			return this;
		}

		/**
		 * Bound on each node's answer within one round; must stay below a third of every
		 * lease.
		 * @param nodeTimeout a positive duration
		 * @return this builder
		 */
		public Builder nodeTimeout(Duration nodeTimeout) {
			this.nodeTimeout = requireNonNull(nodeTimeout, "nodeTimeout");
			return this;
		}

		/**
		 * Share of a lease assumed lost to clock drift between nodes, in [0, 0.5).
		 * @param clockDriftFactor the factor
		 * @return this builder
		 */
		public Builder clockDriftFactor(double clockDriftFactor) {
			this.clockDriftFactor = clockDriftFactor;
			return this;
		}

		/**
		 * Bounds of the jittered delay between attempts while waiting.
		 * @param min the shortest delay
		 * @param max the longest delay
		 * @return this builder
		 */
		public Builder retryDelay(Duration min, Duration max) {
			this.retryMin = requireNonNull(min, "min");
			this.retryMax = requireNonNull(max, "max");
			return this;
		}

		/**
		 * Add a listener.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(LockListener listener) {
			this.listeners.add(requireNonNull(listener, "listener"));
			return this;
		}

		/**
		 * Lettuce resources to share (event loops, timers); by default the engine creates
		 * and closes its own.
		 * @param clientResources the resources
		 * @return this builder
		 */
		public Builder clientResources(ClientResources clientResources) {
			this.clientResources = requireNonNull(clientResources, "clientResources");
			return this;
		}

		Builder nanoClock(LongSupplier nanoClock) {
			this.nanoClock = nanoClock;
			return this;
		}

		/**
		 * Check the settings and start connecting to the nodes in the background; a node
		 * that is unreachable now is not an error.
		 * @return the engine
		 * @throws IllegalArgumentException for a bad setting, naming it and its value
		 */
		public QuorumLockEngine build() {
			List<RedisURI> all = new ArrayList<>();
			for (String uri : this.uris) {
				all.add(NodeUri.parse(uri));
			}
			all.addAll(this.redisUris);
			if (!this.clusterSeeds.isEmpty()) {
				checkCluster(all);
			}
			else if (all.isEmpty()) {
				throw new IllegalArgumentException("nodes: at least one Redis node is required, got none");
			}
			Set<String> seen = new HashSet<>();
			for (RedisURI uri : all) {
				String address = uri.getHost() + ":" + uri.getPort();
				if (!seen.add(address.toLowerCase(java.util.Locale.ROOT))) {
					throw new IllegalArgumentException("nodes: " + address + " is listed twice");
				}
			}
			if (all.size() > 1 && all.size() % 2 == 0) {
				log.log(Level.WARNING, "nodes: " + all.size() + " nodes tolerate no more failures than "
						+ (all.size() - 1) + "; an odd number of independent masters is recommended");
			}
			if (this.nodeTimeout.isNegative() || this.nodeTimeout.isZero()) {
				throw new IllegalArgumentException("nodeTimeout must be positive, was " + this.nodeTimeout);
			}
			if (!(this.clockDriftFactor >= 0 && this.clockDriftFactor < 0.5)) {
				throw new IllegalArgumentException(
						"clockDriftFactor must be in [0, 0.5), was " + this.clockDriftFactor);
			}
			if (this.retryMin.isNegative() || this.retryMax.compareTo(this.retryMin) < 0) {
				throw new IllegalArgumentException("retryDelay must satisfy 0 <= min <= max, was "
						+ this.retryMin.toMillis() + " ms.." + this.retryMax.toMillis() + " ms");
			}
			if (this.maxKeyLength < 1) {
				throw new IllegalArgumentException("maxKeyLength must be positive, was " + this.maxKeyLength);
			}
			LockOptions effective = this.defaults.orElse(BUILT_IN);
			checkLease("defaults", effective);
			this.instances.forEach((name, options) -> checkLease("instance '" + name + "'", options.orElse(effective)));
			Map<String, Duration> leases = new LinkedHashMap<>();
			leases.put("defaults", effective.lease().orElseThrow());
			this.instances.forEach((name, options) -> leases.put("instance '" + name + "'",
					options.orElse(effective).lease().orElseThrow()));
			this.declaredLeases.stream()
				.max(Duration::compareTo)
				.ifPresent((lease) -> leases.put("a declared lease", lease));
			int nodeCount = this.clusterSeeds.isEmpty() ? all.size() : 1;
			RestartGuard guard = RestartGuard.of(nodeCount, this.rejoinDelay, leases);
			return new QuorumLockEngine(this, all, guard);
		}

		private void checkCluster(List<RedisURI> nodes) {
			if (!nodes.isEmpty()) {
				throw new IllegalArgumentException("cluster: a Redis Cluster is one node (single mode) and cannot be "
						+ "combined with nodes, got " + nodes.size() + " node(s) as well");
			}
			if (this.syncReplicas > 0) {
				throw new IllegalArgumentException("syncReplicas " + this.syncReplicas
						+ " is not supported on a Redis Cluster: WAIT would not reach the master that took the lock");
			}
			if (this.keyPrefix.indexOf('{') >= 0 || this.keyPrefix.indexOf('}') >= 0) {
				throw new IllegalArgumentException("keyPrefix '" + this.keyPrefix + "' must not contain '{' or '}' "
						+ "on a Redis Cluster: the lock key's own hash tag must decide its slot");
			}
		}

		private void checkLease(String where, LockOptions options) {
			LockRules.check(where, options, this.nodeTimeout);
		}

		private static <T> T requireNonNull(T value, String name) {
			if (value == null) {
				throw new IllegalArgumentException("'" + name + "' must not be null");
			}
			return value;
		}

	}

}
