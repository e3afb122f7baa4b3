package io.quorumlock.etcd;

import java.lang.reflect.UndeclaredThrowableException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.stream.Collectors;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockException;
import io.quorumlock.LockListener;
import io.quorumlock.LockMode;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.LockRules;
import io.quorumlock.LockUpgradeException;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryAdmin;
import io.quorumlock.RegistryStatus;

/**
 * A {@link DistributedLockRegistry} on etcd, with the same contract as the Redis engine
 * and safety that rests on etcd's consensus, not on any server's clock: <pre>{@code
 * try (EtcdLockRegistry locks = EtcdLockRegistry.builder()
 *         .endpoints("http://etcd-1:2379", "http://etcd-2:2379", "http://etcd-3:2379")
 *         .build()) {
 *     try (Lease lease = locks.acquire(LockRequest.of("order:42").waitAtMost(Duration.ofSeconds(5)))) {
 *         store.write(order, lease.fencingToken());
 *     }
 * }
 * }</pre>
 * <ul>
 * <li>A hold writes one key per lock key, {@code <prefix><name>:{<key>}}, a NUL byte and
 * the hex id of an etcd lease of its own (the hold's <em>per-hold lease</em>), in a
 * transaction that requires the key's create revision to be 0.</li>
 * <li>Waiters queue in create-revision order (FIFO by construction): each watches its
 * predecessor's delete and, after every wake-up, re-checks that its own lease is alive
 * and its own keys still have their create revisions before it counts as a holder. A
 * waiter whose lease expired while it waited is never granted on it.</li>
 * <li>Release deletes the keys in a transaction that compares each key's create revision
 * with the hold's (sent once, never retried) and revokes the per-hold lease: never a
 * delete by name, so a late or repeated release can never delete a later holder's
 * key.</li>
 * <li>Renewal is one keep-alive per lease every third of its lease, sent by one periodic
 * pass over all leases of the registry (no stream or thread per lease). The lease is lost
 * when etcd answers that it expired, or when its validity (lease − elapsed − drift, from
 * the start of the last answered request) runs out; an unanswered request is asked again,
 * never taken for a loss.</li>
 * <li>The fencing token is the etcd revision at which the grant was decided: one counter
 * of the whole cluster, so tokens grow with each holder of a key and compare across
 * keys.</li>
 * </ul>
 * Re-entry is scoped to a call, as on the Redis engine (see
 * {@link DistributedLockRegistry}). {@link LockMode#SHARED Shared} locks keep the
 * revision order: a shared request waits only for older exclusive keys, an exclusive one
 * for every older key, so a waiting exclusive request is never passed by later shared
 * ones; a shared lease has no fencing token, and a shared holder cannot upgrade
 * ({@link io.quorumlock.LockUpgradeException}). {@link LockRequest#permits(int) Permits}
 * k keep it too: a permit request holds while fewer than k older permit keys of the lock
 * remain, and wakes at any delete among them. Etcd's own {@code Lock} service and jetcd's
 * {@code Lock} client are not used. Futures complete on the registry's executor, never on
 * a gRPC or Vert.x event-loop thread; a blocking call on such a thread is refused.
 */
public final class EtcdLockRegistry implements DistributedLockRegistry, RegistryStatus, RegistryAdmin, AutoCloseable {

	private static final LockOptions BUILT_IN = LockOptions.none()
		.lease(Duration.ofSeconds(30))
		.waitAtMost(Duration.ZERO)
		.renew(true);

	private static final AtomicInteger registries = new AtomicInteger();

	private final List<String> endpoints;

	private final String prefix;

	private final LockOptions defaults;

	private final Map<String, LockOptions> instances;

	private final Duration requestTimeout;

	private final long retryDelayNanos;

	private final boolean throwOnLoss;

	private final Validity validity;

	private final Listeners listeners;

	private final ExecutorService executor;

	private final ScheduledExecutorService scheduler;

	private final KeepAlives keepAlives;

	private final Members members;

	private final EtcdAdmin admin;

	private final EtcdCalls calls;

	private final ByteSequence holderValue;

	private final String address;

	private final Set<EtcdLease> unreleased = ConcurrentHashMap.newKeySet();

	private final Set<Acquisition> pending = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	private EtcdLockRegistry(Builder builder) {
		this.endpoints = List.copyOf(builder.endpoints);
		this.prefix = builder.keyPrefix;
		this.defaults = builder.defaults.orElse(BUILT_IN);
		this.instances = Map.copyOf(builder.instances);
		this.requestTimeout = builder.requestTimeout;
		this.retryDelayNanos = builder.retryDelay.toNanos();
		this.throwOnLoss = builder.throwOnLeaseLost;
		this.validity = new Validity(builder.clockDriftFactor);
		this.listeners = new Listeners(builder.listeners);
		int id = registries.incrementAndGet();
		this.executor = Executors.newCachedThreadPool(threads("quorumlock-etcd-" + id + "-"));
		this.scheduler = Executors.newSingleThreadScheduledExecutor(threads("quorumlock-etcd-" + id + "-timer-"));
		this.keepAlives = new KeepAlives(this.scheduler, this.executor, builder.keepAlivePass);
		ClientBuilder client = Client.builder()
			.endpoints(this.endpoints.stream().map(URI::create).toArray(URI[]::new))
			.connectTimeout(builder.requestTimeout);
		if (builder.user != null) {
			client.user(ByteSequence.from(builder.user, StandardCharsets.UTF_8))
				.password(ByteSequence.from(builder.password, StandardCharsets.UTF_8));
		}
		if (builder.trust != null || this.endpoints.stream().anyMatch((endpoint) -> endpoint.startsWith("https:"))) {
			tls(client, builder.trust, builder.keys);
		}
		this.calls = new EtcdCalls(client.build(), builder.requestTimeout, this.executor);
		this.holderValue = EtcdCalls.bytes("quorumlock " + UUID.randomUUID());
		this.members = new Members(this.endpoints, this.calls, this.scheduler, builder.memberStatusPeriod);
		this.admin = new EtcdAdmin(this, this.prefix);
		this.address = this.endpoints.stream()
			.map(URI::create)
			.map((uri) -> uri.getHost() + ":" + uri.getPort())
			.collect(Collectors.joining(","));
		LockRules.check("defaults", this.defaults.renew(false), builder.requestTimeout);
	}

	private static void tls(ClientBuilder client, TrustManagerFactory trust, KeyManagerFactory keys) {
		try {
			client.sslContext((ssl) -> {
				if (trust != null) {
					ssl.trustManager(trust);
				}
				if (keys != null) {
					ssl.keyManager(keys);
				}
			});
		}
		catch (SSLException ex) {
			throw new IllegalArgumentException("cannot set up TLS to etcd: " + ex.getMessage(), ex);
		}
	}

	/**
	 * A builder: endpoints, credentials, key prefix, default lock options, timeouts.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	@Override
	public Lease acquire(LockRequest request) {
		EtcdRequest resolved = resolve(request);
		Lease held = reentry(resolved);
		return (held != null) ? held : acquireBlocking(resolved, resolved.waitAtMost().toNanos(), true);
	}

	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		try {
			return Optional.of(acquire(request));
		}
		catch (LockNotAcquiredException ex) {
			return Optional.empty();
		}
	}

	@Override
	public CompletableFuture<Lease> acquireAsync(LockRequest request) {
		EtcdRequest resolved;
		Lease held;
		try {
			resolved = resolve(request);
			held = reentry(resolved);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (held != null) {
			return CompletableFuture.completedFuture(held);
		}
		CompletableFuture<Lease> result = new CompletableFuture<>();
		Acquisition acquisition = begin(resolved, resolved.waitAtMost().toNanos());
		acquisition.result.whenComplete((lease, failure) -> {
			if (failure != null) {
				result.completeExceptionally(EtcdCalls.unwrap(failure));
			}
			else if (!result.complete(lease)) {
				lease.releaseAsync(); // cancelled meanwhile
			}
		});
		result.whenComplete((lease, failure) -> {
			if (result.isCancelled()) {
				acquisition.fail(acquisition.notAcquired("the caller cancelled"));
			}
		});
		return result;
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
					"checked exception from the action run under " + resolve(request).describe());
			releaseAfter(lease, wrapped);
			throw wrapped;
		}
		lease.release();
		return value;
	}

	@Override
	public Lock asLock(String key) {
		return new EtcdLockView(this, LockRequest.of(key));
	}

	@Override
	public Lock asLock(LockRequest request) {
		if (request == null) {
			throw new IllegalArgumentException("'request' must not be null");
		}
		if (request.keys().size() != 1 || request.mode() != LockMode.EXCLUSIVE || request.permits() != 1) {
			throw new IllegalArgumentException("a Lock view is of one exclusive key, not of " + request);
		}
		return new EtcdLockView(this, request);
	}

	/**
	 * Fail every pending acquisition ({@link LockNotAcquiredException}, "the registry was
	 * closed"), release every lease still held (its per-hold etcd lease revoked), and
	 * close the etcd client and the registry's threads.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		List<CompletableFuture<Void>> revokes = new ArrayList<>();
		for (Acquisition acquisition : this.pending) {
			acquisition.fail(acquisition.notAcquired("the registry was closed"));
			revokes.add(acquisition.revoking());
		}
		for (EtcdLease lease : this.unreleased) {
			revokes.add(lease.closeWithRegistry());
		}
		try {
			CompletableFuture.allOf(revokes.toArray(CompletableFuture[]::new))
				.get(2 * this.requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// best effort: each per-hold lease expires within its TTL anyway
		}
		this.keepAlives.close();
		this.members.close();
		this.scheduler.shutdownNow();
		this.calls.close();
		this.executor.shutdown();
	}

	// RegistryStatus

	/**
	 * {@inheritDoc}
	 * @return {@code "etcd"}
	 */
	@Override
	public String mode() {
		return "etcd";
	}

	/**
	 * {@inheritDoc} On etcd, the cluster's own majority of the configured endpoints; the
	 * client counts no votes itself.
	 */
	@Override
	public int quorum() {
		return this.endpoints.size() / 2 + 1;
	}

	/**
	 * {@inheritDoc} On etcd, each configured endpoint as its last status request found it
	 * (asked of each member every {@link Builder#memberStatusPeriod member status
	 * period}, from the first call of this method on): {@code voting} when it answered
	 * and knew a leader, up but not voting ({@code held-back}, with the reason in
	 * {@code lastError}) when it answered without a leader, {@code down} when it did not
	 * answer; not up and {@code held-back} ({@code lastError} "no answer yet") until its
	 * first answer. These requests only inform operators: a lock request never waits for
	 * them, and the cluster, not the client, counts the majority of each grant.
	 */
	@Override
	public List<Node> nodes() {
		return this.members.nodes(this.closed);
	}

	@Override
	public List<HeldLease> leases() {
		return this.unreleased.stream().filter(EtcdLease::isValid).map(EtcdLease::status).toList();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * On etcd the answer is one linearizable read of the lock's keys (holders and
	 * waiters; where there is any, the oldest holds), which etcd gives only with a quorum
	 * of its members behind it, asked again while no answer comes for up to three request
	 * timeouts; without an answer by then it throws {@link QuorumUnavailableException}.
	 */
	@Override
	public boolean isLocked(LockRequest request) {
		checkNotEventLoop("isLocked()", "isLockedAsync()");
		return await(isLockedAsync(request));
	}

	@Override
	public CompletableFuture<Boolean> isLockedAsync(LockRequest request) {
		EtcdRequest etcd;
		try {
			etcd = resolve(LockRules.checkQuery(request));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		CompletableFuture<Boolean> answer = new CompletableFuture<>();
		askHeld(etcd, System.nanoTime() + 3 * requestTimeoutNanos(), answer);
		return answer;
	}

	/**
	 * Ask etcd whether the lock has any key; a request without an answer is asked again
	 * after the retry delay while answers may come (three request timeouts, as an
	 * acquisition), then the answer is unknown.
	 */
	private void askHeld(EtcdRequest etcd, long answerUntil, CompletableFuture<Boolean> answer) {
		this.calls.count(etcd.holds(0)).whenComplete((response, failure) -> {
			if (failure == null) {
				answer.complete(response.getCount() > 0);
				return;
			}
			this.listeners.nodeError(address(), failure);
			long delay = retryDelayNanos();
			if (!this.closed && answerUntil - (System.nanoTime() + delay) > 0) {
				try {
					this.keepAlives.later(delay, () -> askHeld(etcd, answerUntil, answer));
					return;
				}
				catch (RejectedExecutionException ex) {
					// closed meanwhile: the answer stays unknown
				}
			}
			answer.completeExceptionally(new QuorumUnavailableException(etcd.describe()
					+ ": cannot tell whether it is held, etcd did not answer (" + EtcdCalls.describe(failure) + ")"));
		});
	}

	@Override
	public boolean isHeldByCurrentThread(LockRequest request) {
		EtcdRequest etcd = resolve(LockRules.checkQuery(request));
		Thread me = Thread.currentThread();
		for (EtcdLease lease : this.unreleased) {
			if (lease.request().sharesKeysWith(etcd) && (lease.owner() == me || isBound(lease)) && lease.isValid()) {
				return true;
			}
		}
		return false;
	}

	@Override
	public boolean isHeldByThisInstance(LockRequest request) {
		EtcdRequest etcd = resolve(LockRules.checkQuery(request));
		for (EtcdLease lease : this.unreleased) {
			if (lease.request().sharesKeysWith(etcd) && lease.isValid()) {
				return true;
			}
		}
		return false;
	}

	// RegistryAdmin

	/**
	 * {@inheritDoc} On etcd, every hold of the lock, its holder's and its waiters', ends:
	 * the etcd lease of each is revoked, which deletes its key. The holder sees its lease
	 * gone at its next keep-alive and reports the loss; the waiters queue again under
	 * fresh leases.
	 * @param lockKey the full lock key, such as {@code lock:orders:{42}}
	 * @return how many holds (the holder and the waiters) were ended
	 */
	@Override
	public int forceUnlock(String lockKey) {
		checkNotEventLoop("forceUnlock()", "a thread of your own");
		return this.admin.forceUnlock(lockKey);
	}

	/**
	 * {@inheritDoc} On etcd, keys under the prefix attached to no etcd lease (the locks
	 * write none: such a key was written by something else and never expires).
	 * @return {@code etcd <key>} lines, a NUL byte written as {@code \0}
	 */
	@Override
	public List<String> keysWithoutTtl(int limit) {
		checkNotEventLoop("keysWithoutTtl()", "a thread of your own");
		return this.admin.keysWithoutTtl(limit);
	}

	// for the lease, the acquisition and the lock view

	EtcdRequest resolve(LockRequest request) {
		Objects.requireNonNull(request, "'request' must not be null");
		LockOptions named = this.instances.get(request.name());
		LockOptions resolved = request.options().orElse((named != null) ? named.orElse(this.defaults) : this.defaults);
		EtcdRequest etcd = new EtcdRequest(request, resolved, this.prefix);
		// the node-timeout rule holds for leases that renew: a keep-alive every lease/3
		// must be answerable within it
		Optional<String> problem = LockRules.problem(etcd.renew() ? resolved : resolved.renew(false),
				etcd.renew() ? this.requestTimeout : Duration.ZERO);
		if (problem.isPresent()) {
			throw new IllegalArgumentException(etcd.describe() + ": " + problem.get());
		}
		return etcd;
	}

	/**
	 * A hold on the lease of these keys within whose scope this thread runs, or null.
	 * @throws IllegalStateException if the scope holds only some of the keys
	 * @throws LeaseLostException if the lease in scope was lost
	 */
	Lease reentry(EtcdRequest request) {
		Thread me = Thread.currentThread();
		List<EtcdLease> inScope = new ArrayList<>(1);
		for (EtcdLease lease : this.unreleased) {
			if (lease.request().sharesKeysWith(request) && (lease.owner() == me || isBound(lease))) {
				inScope.add(lease);
			}
		}
		if (inScope.isEmpty()) {
			return null;
		}
		EtcdLease held = inScope.get(0);
		if (inScope.size() > 1 || !held.request().coversKeysOf(request)) {
			throw new IllegalStateException(request.describe() + ": this thread already holds some of these keys "
					+ "under another lease; lock the whole set in the outermost call so keys are taken in sorted order");
		}
		if (held.request().shared() && !request.shared()) {
			throw new LockUpgradeException(request.describe() + ": this thread holds the key shared; there is no "
					+ "upgrade from shared to exclusive: release the shared lease first, or take the key exclusively "
					+ "from the start");
		}
		// an exclusive holder re-entering as shared counts as its exclusive hold
		return held.reenter();
	}

	private static boolean isBound(EtcdLease lease) {
		return CurrentLease
			.anyBound((bound) -> bound == lease || (bound instanceof EtcdLease.Hold hold && hold.lease() == lease));
	}

	EtcdLease acquireBlocking(EtcdRequest request, long waitNanos, boolean interruptible) {
		checkNotEventLoop("acquire()", "acquireAsync()");
		Acquisition acquisition = begin(request, waitNanos);
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return acquisition.result.get();
				}
				catch (InterruptedException ex) {
					interrupted = true;
					if (interruptible) {
						acquisition.fail(acquisition.notAcquired("the waiting thread was interrupted"));
					}
				}
				catch (ExecutionException ex) {
					Throwable cause = EtcdCalls.unwrap(ex);
					if (cause instanceof RuntimeException runtime) {
						throw runtime;
					}
					throw new IllegalStateException(request.describe() + ": acquisition failed", cause);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private Acquisition begin(EtcdRequest request, long waitNanos) {
		Acquisition acquisition = new Acquisition(this, request, System.nanoTime(), waitNanos);
		this.pending.add(acquisition);
		if (this.closed) {
			acquisition.fail(acquisition.notAcquired("the registry was closed"));
			return acquisition;
		}
		this.executor.execute(acquisition::start);
		return acquisition;
	}

	void granted(Acquisition acquisition, EtcdLease lease) {
		this.pending.remove(acquisition);
		this.unreleased.add(lease);
		this.keepAlives.add(lease);
		this.listeners.acquired(acquisition.request().request(), lease,
				Duration.ofNanos(System.nanoTime() - acquisition.startedAt()));
		if (this.closed || !acquisition.result.complete(lease)) {
			lease.releaseAsync();
		}
	}

	void notAcquired(Acquisition acquisition, LockException failure) {
		this.pending.remove(acquisition);
		this.listeners.notAcquired(acquisition.request().request(),
				Duration.ofNanos(System.nanoTime() - acquisition.startedAt()), failure);
		acquisition.result.completeExceptionally(failure);
	}

	void released(EtcdLease lease) {
		this.unreleased.remove(lease);
	}

	/** Wait for a future of this registry's calls, rethrowing its failure unwrapped. */
	<T> T await(CompletableFuture<T> future) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return future.get();
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (ExecutionException ex) {
					Throwable cause = EtcdCalls.unwrap(ex);
					if (cause instanceof RuntimeException runtime) {
						throw runtime;
					}
					if (cause instanceof Error error) {
						throw error;
					}
					throw new IllegalStateException(EtcdCalls.describe(cause), cause);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Refuse a blocking call on an event-loop thread, whose reply it would wait for. */
	void checkNotEventLoop(String call, String alternative) {
		if (io.vertx.core.Context.isOnEventLoopThread()) {
			throw new IllegalStateException(call + " would block the event-loop thread '"
					+ Thread.currentThread().getName() + "' that reads etcd's answers; use " + alternative);
		}
	}

	EtcdCalls calls() {
		return this.calls;
	}

	KeepAlives keepAlives() {
		return this.keepAlives;
	}

	Validity validity() {
		return this.validity;
	}

	Listeners listeners() {
		return this.listeners;
	}

	ByteSequence holderValue() {
		return this.holderValue;
	}

	boolean throwsOnLoss() {
		return this.throwOnLoss;
	}

	long retryDelayNanos() {
		return this.retryDelayNanos;
	}

	long requestTimeoutNanos() {
		return this.requestTimeout.toNanos();
	}

	/** The endpoints as {@code host:port} list, for listeners. */
	String address() {
		return this.address;
	}

	private static void releaseAfter(Lease lease, Throwable failure) {
		try {
			lease.release();
		}
		catch (RuntimeException releaseFailure) {
			failure.addSuppressed(releaseFailure);
		}
	}

	private static ThreadFactory threads(String prefix) {
		AtomicInteger count = new AtomicInteger();
		return (task) -> {
			Thread thread = new Thread(task, prefix + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

	@Override
	public String toString() {
		return "EtcdLockRegistry[" + this.address + ", prefix " + this.prefix + "]";
	}

	/**
	 * Builds an {@link EtcdLockRegistry}. Every setting has a default except the
	 * endpoints.
	 */
	public static final class Builder {

		private final List<String> endpoints = new ArrayList<>();

		private String user;

		private String password;

		private String keyPrefix = "lock:";

		private TrustManagerFactory trust;

		private KeyManagerFactory keys;

		private LockOptions defaults = LockOptions.none();

		private final Map<String, LockOptions> instances = new LinkedHashMap<>();

		private Duration requestTimeout = Duration.ofSeconds(1);

		private Duration retryDelay = Duration.ofMillis(50);

		private Duration keepAlivePass = Duration.ofMillis(100);

		private Duration memberStatusPeriod = Duration.ofSeconds(1);

		private double clockDriftFactor = 0.01;

		private boolean throwOnLeaseLost = true;

		private final List<LockListener> listeners = new ArrayList<>();

		private Builder() {
		}

		/**
		 * The etcd members' client URLs, such as {@code http://etcd-1:2379}.
		 * @param endpoints one or more URLs
		 * @return this builder
		 */
		public Builder endpoints(String... endpoints) {
			return endpoints(List.of(endpoints));
		}

		/**
		 * The etcd members' client URLs, such as {@code http://etcd-1:2379}.
		 * @param endpoints one or more URLs
		 * @return this builder
		 */
		public Builder endpoints(List<String> endpoints) {
			for (String endpoint : endpoints) {
				URI uri;
				try {
					uri = URI.create(endpoint);
				}
				catch (IllegalArgumentException ex) {
					throw new IllegalArgumentException("etcd endpoint '" + endpoint + "' is not a URI", ex);
				}
				if (uri.getHost() == null || uri.getPort() < 0
						|| !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
					throw new IllegalArgumentException(
							"etcd endpoint '" + endpoint + "' must be http://host:port or https://host:port");
				}
				this.endpoints.add(endpoint);
			}
			return this;
		}

		/**
		 * Credentials of etcd's authentication.
		 * @param user the user
		 * @param password the password (never logged)
		 * @return this builder
		 */
		public Builder credentials(String user, String password) {
			this.user = Objects.requireNonNull(user, "'user' must not be null");
			this.password = Objects.requireNonNull(password, "'password' must not be null");
			return this;
		}

		/**
		 * TLS to {@code https://} endpoints with this trust (a private CA) and, for
		 * etcd's client-certificate authentication, these keys. Without it,
		 * {@code https://} endpoints are trusted by the JVM's default trust store.
		 * @param trust the trust managers of the members' certificates
		 * @param keys the client's key managers, or null for none
		 * @return this builder
		 */
		public Builder tls(TrustManagerFactory trust, KeyManagerFactory keys) {
			this.trust = Objects.requireNonNull(trust, "'trust' must not be null");
			this.keys = keys;
			return this;
		}

		/**
		 * The prefix of every lock key. Default {@code lock:}.
		 * @param keyPrefix the prefix
		 * @return this builder
		 */
		public Builder keyPrefix(String keyPrefix) {
			this.keyPrefix = Objects.requireNonNull(keyPrefix, "'keyPrefix' must not be null");
			return this;
		}

		/**
		 * The options of a request that sets none, over the built-in ones (lease 30 s, no
		 * wait, renewal on).
		 * @param defaults the default options
		 * @return this builder
		 */
		public Builder defaults(LockOptions defaults) {
			this.defaults = Objects.requireNonNull(defaults, "'defaults' must not be null");
			return this;
		}

		/**
		 * Options for the locks of one name, over the defaults.
		 * @param name the lock name
		 * @param options its options
		 * @return this builder
		 */
		public Builder instance(String name, LockOptions options) {
			this.instances.put(Objects.requireNonNull(name, "'name' must not be null"),
					Objects.requireNonNull(options, "'options' must not be null"));
			return this;
		}

		/**
		 * How long one etcd request may go unanswered before it counts as unknown and is
		 * asked again (never as a "no"). A lease that renews must be longer than three of
		 * them. Default 1 s.
		 * @param requestTimeout a positive duration
		 * @return this builder
		 */
		public Builder requestTimeout(Duration requestTimeout) {
			this.requestTimeout = positive(requestTimeout, "requestTimeout");
			return this;
		}

		/**
		 * The pause before an unanswered request is asked again. Default 50 ms.
		 * @param retryDelay a positive duration
		 * @return this builder
		 */
		public Builder retryDelay(Duration retryDelay) {
			this.retryDelay = positive(retryDelay, "retryDelay");
			return this;
		}

		/**
		 * The period of the keep-alive pass over all leases. Default 100 ms.
		 * @param period a positive duration
		 * @return this builder
		 */
		public Builder keepAlivePass(Duration period) {
			this.keepAlivePass = positive(period, "keepAlivePass");
			return this;
		}

		/**
		 * The period of the status requests to each member that
		 * {@link EtcdLockRegistry#nodes()} reports (for health and operators; never on a
		 * lock's path). Default 1 s.
		 * @param period a positive duration
		 * @return this builder
		 */
		public Builder memberStatusPeriod(Duration period) {
			this.memberStatusPeriod = positive(period, "memberStatusPeriod");
			return this;
		}

		/**
		 * The drift allowance over a lease, as the Redis engine's: validity is lease −
		 * elapsed − (lease × factor + 2 ms). Default 0.01.
		 * @param clockDriftFactor in [0, 0.5)
		 * @return this builder
		 */
		public Builder clockDriftFactor(double clockDriftFactor) {
			new Validity(clockDriftFactor);
			this.clockDriftFactor = clockDriftFactor;
			return this;
		}

		/**
		 * Whether the release of a lease lost before it throws {@link LeaseLostException}
		 * (the default) or only reports the loss to the listeners and the log.
		 * @param throwOnLeaseLost whether to throw
		 * @return this builder
		 */
		public Builder throwOnLeaseLost(boolean throwOnLeaseLost) {
			this.throwOnLeaseLost = throwOnLeaseLost;
			return this;
		}

		/**
		 * A listener of grants, failures, renewals, releases and losses.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(LockListener listener) {
			this.listeners.add(Objects.requireNonNull(listener, "'listener' must not be null"));
			return this;
		}

		/**
		 * Build and connect the registry (the connection is made on first use).
		 * @return the registry, to be closed
		 * @throws IllegalArgumentException if no endpoint was given, or the defaults
		 * break a rule
		 */
		public EtcdLockRegistry build() {
			if (this.endpoints.isEmpty()) {
				throw new IllegalArgumentException("an etcd lock registry needs at least one endpoint");
			}
			return new EtcdLockRegistry(this);
		}

		private static Duration positive(Duration value, String what) {
			if (value == null || value.isNegative() || value.isZero()) {
				throw new IllegalArgumentException(what + " must be positive, was " + value);
			}
			return value;
		}

	}

}
