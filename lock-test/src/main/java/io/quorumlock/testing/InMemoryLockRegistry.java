package io.quorumlock.testing;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import org.springframework.core.env.Environment;

import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockMode;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.LockRules;

/**
 * A {@link DistributedLockRegistry} in this JVM's memory, for fast unit tests of locked
 * code without a Redis server. It keeps the registry's contract: acquisitions wait up to
 * {@code waitAtMost}; a lease that does not renew expires after its {@code lease}, and
 * one that renews is held until released or, with {@code holdAtMost}, until the last
 * renewal before {@code holdAtMost} runs out (renewals every lease/3, as the Redis
 * engine); re-entry is scoped to a call ({@link #execute}, an annotated method, a
 * {@link #asLock Lock view}'s hold), never to a thread that once acquired; several keys
 * are locked all or nothing; a release before {@code holdAtLeast} keeps the keys for the
 * remainder; fencing tokens grow with each grant; a release after expiry throws
 * {@link LeaseLostException}. Messages name the lock as the engine does, with keys under
 * the default prefix {@code lock:}.
 * <p>
 * Declared as the application's {@code DistributedLockRegistry} bean, it replaces the
 * Redis engine (the auto-configuration backs off) and the {@code @DistributedLock} aspect
 * runs on it; built with {@link #of(Environment)}, it applies {@code quorumlock.*} and
 * {@code quorumlock.instances.<name>.*} as the engine does. {@link #peer()} gives another
 * "instance of the service": a registry over the same locks whose leases are other
 * callers'.
 * <p>
 * Not for production: nothing is shared between JVMs.
 */
public final class InMemoryLockRegistry implements DistributedLockRegistry, AutoCloseable {

	private static final LockOptions BUILT_IN = LockOptions.none()
		.lease(Duration.ofSeconds(30))
		.waitAtMost(Duration.ZERO)
		.renew(true);

	private static final AtomicInteger threads = new AtomicInteger();

	private final InMemoryLocks locks;

	private final LockOptions defaults;

	/** Options per lock name, over the defaults. */
	private final Map<String, LockOptions> instances;

	/** This registry's leases not yet released: the candidates for re-entry. */
	private final Set<InMemoryLease> unreleased = ConcurrentHashMap.newKeySet();

	private final ExecutorService async;

	/**
	 * A registry with the engine's built-in defaults: lease 30 s, no wait, renewal on.
	 */
	public InMemoryLockRegistry() {
		this(LockOptions.none());
	}

	/**
	 * A registry with these defaults, over the built-in ones.
	 * @param defaults the options of a request that sets none
	 */
	public InMemoryLockRegistry(LockOptions defaults) {
		this(defaults, Map.of());
	}

	/**
	 * A registry with these defaults, over the built-in ones, and these options per lock
	 * name, over the defaults, as {@code quorumlock.*} and
	 * {@code quorumlock.instances.<name>.*} give them: a request's own options come
	 * first, then its name's, then the defaults.
	 * @param defaults the options of a request that sets none
	 * @param instances the options of each lock name
	 */
	public InMemoryLockRegistry(LockOptions defaults, Map<String, LockOptions> instances) {
		this(new InMemoryLocks(), defaults, instances);
	}

	private InMemoryLockRegistry(InMemoryLocks locks, LockOptions defaults, Map<String, LockOptions> instances) {
		this.locks = locks;
		this.defaults = defaults.orElse(BUILT_IN);
		this.instances = Map.copyOf(instances);
		this.async = Executors.newCachedThreadPool(daemonThreads());
	}

	/**
	 * A registry with the options that {@code quorumlock.*} and
	 * {@code quorumlock.instances.<name>.*} set in a Spring {@link Environment}
	 * ({@code lease}, {@code wait-at-most}, {@code renew}, {@code hold-at-most},
	 * {@code hold-at-least}), so that the locked beans of a Spring test behave as they do
	 * on the Redis engine. Needs Spring Boot on the class path (any Spring Boot test has
	 * it).
	 * @param environment the application's environment
	 * @return a new registry
	 * @throws IllegalArgumentException if a value does not bind, naming the property
	 */
	public static InMemoryLockRegistry of(Environment environment) {
		Objects.requireNonNull(environment, "'environment' must not be null");
		return InMemoryOptions.bind(environment).registry();
	}

	/**
	 * Another registry over the same locks, with the same defaults, standing for another
	 * instance of the service: its leases exclude this one's and never re-enter them.
	 * @return the peer, to be closed by the caller
	 */
	public InMemoryLockRegistry peer() {
		return new InMemoryLockRegistry(this.locks, this.defaults, this.instances);
	}

	@Override
	public Lease acquire(LockRequest request) {
		InMemoryLockRequest resolved = resolve(request);
		Lease held = reentry(resolved);
		return (held != null) ? held : grant(resolved, resolved.waitNanos(), true);
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
		InMemoryLockRequest resolved;
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
		Future<?> task;
		try {
			task = this.async.submit(() -> {
				try {
					Lease lease = grant(resolved, resolved.waitNanos(), true);
					if (!result.complete(lease)) {
						lease.release(); // the caller cancelled meanwhile
					}
				}
				catch (RuntimeException | Error ex) {
					result.completeExceptionally(ex);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			return CompletableFuture.failedFuture(new IllegalStateException(resolved.describe() + ": registry closed"));
		}
		result.whenComplete((lease, failure) -> {
			if (result.isCancelled()) {
				task.cancel(true); // stops the wait
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
		return new InMemoryLockView(this, LockRequest.of(key));
	}

	@Override
	public Lock asLock(LockRequest request) {
		if (request == null) {
			throw new IllegalArgumentException("'request' must not be null");
		}
		if (request.keys().size() != 1 || request.mode() != LockMode.EXCLUSIVE || request.permits() != 1) {
			throw new IllegalArgumentException("a Lock view is of one exclusive key, not of " + request);
		}
		return new InMemoryLockView(this, request);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Here every answer is known: whether a lease of this registry or of its peers holds
	 * the key, or keeps it for its minimum hold.
	 */
	@Override
	public boolean isLocked(LockRequest request) {
		return this.locks.isHeld(resolve(LockRules.checkQuery(request)).lockKeys().get(0));
	}

	@Override
	public boolean isHeldByCurrentThread(LockRequest request) {
		InMemoryLockRequest resolved = resolve(LockRules.checkQuery(request));
		Thread me = Thread.currentThread();
		for (InMemoryLease lease : this.unreleased) {
			if (lease.sharesKeysWith(resolved) && (lease.owner() == me || isBound(lease)) && lease.isValid()) {
				return true;
			}
		}
		return false;
	}

	@Override
	public boolean isHeldByThisInstance(LockRequest request) {
		InMemoryLockRequest resolved = resolve(LockRules.checkQuery(request));
		for (InMemoryLease lease : this.unreleased) {
			if (lease.sharesKeysWith(resolved) && lease.isValid()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Stop the threads of {@link #acquireAsync}; leases already granted stay held until
	 * released. Peers are closed separately.
	 */
	@Override
	public void close() {
		this.async.shutdownNow();
	}

	InMemoryLockRequest resolve(LockRequest request) {
		LockOptions named = this.instances.get(request.name());
		LockOptions defaults = (named != null) ? named.orElse(this.defaults) : this.defaults;
		return new InMemoryLockRequest(request, request.options().orElse(defaults));
	}

	/**
	 * A grant, waiting up to {@code waitNanos} ({@code Long.MAX_VALUE}: without bound).
	 */
	InMemoryLease grant(InMemoryLockRequest request, long waitNanos, boolean interruptible) {
		InMemoryLease lease = this.locks.grant(this, request, waitNanos, interruptible);
		this.unreleased.add(lease);
		return lease;
	}

	void released(InMemoryLease lease) {
		this.unreleased.remove(lease);
	}

	/**
	 * A hold on the lease of these keys within whose scope this thread runs, or null: an
	 * unreleased lease of this registry bound to {@link CurrentLease} here (by
	 * {@link #execute} or the aspect) or held by this thread through a Lock view.
	 * @throws IllegalStateException if the scope holds only some of the keys
	 * @throws LeaseLostException if the lease in scope has expired
	 */
	Lease reentry(InMemoryLockRequest request) {
		Thread me = Thread.currentThread();
		List<InMemoryLease> inScope = new ArrayList<>(1);
		for (InMemoryLease lease : this.unreleased) {
			if (lease.sharesKeysWith(request) && (lease.owner() == me || isBound(lease))) {
				inScope.add(lease);
			}
		}
		if (inScope.isEmpty()) {
			return null;
		}
		InMemoryLease held = inScope.get(0);
		if (inScope.size() > 1 || !held.coversKeysOf(request)) {
			throw new IllegalStateException(request.describe() + ": this thread already holds some of these keys "
					+ "under another lease; lock the whole set in the outermost call so keys are taken in sorted order");
		}
		return held.reenter();
	}

	private static boolean isBound(InMemoryLease lease) {
		return CurrentLease
			.anyBound((bound) -> bound == lease || (bound instanceof InMemoryLease.Hold hold && hold.lease() == lease));
	}

	private static void releaseAfter(Lease lease, Throwable failure) {
		try {
			lease.release();
		}
		catch (RuntimeException releaseFailure) {
			failure.addSuppressed(releaseFailure);
		}
	}

	private static ThreadFactory daemonThreads() {
		return (task) -> {
			Thread thread = new Thread(task, "in-memory-lock-async-" + threads.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

}
