package io.quorumlock.actuate;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;

/**
 * A {@link DistributedLockRegistry} that wraps every acquisition in a Micrometer
 * {@link Observation} named {@value #NAME}, so a trace shows the time spent waiting for a
 * lock. Low-cardinality key values only: {@code lock} (the request's label) and
 * {@code outcome}, in the words of the {@code distributed.lock.wait} meter:
 * {@code acquired}, {@code timeout} (contention or a wait that ran out, including an
 * empty {@link #tryAcquire(LockRequest)}), {@code quorum_unavailable} or {@code error}.
 * The {@link Lock} view is passed through unobserved.
 */
public class ObservedLockRegistry implements DistributedLockRegistry {

	/** Name of the acquisition observation. */
	public static final String NAME = "distributed.lock.acquire";

	private final DistributedLockRegistry delegate;

	private final ObservationRegistry observations;

	/**
	 * Wrap a registry.
	 * @param delegate the registry that does the work
	 * @param observations the observation registry
	 */
	public ObservedLockRegistry(DistributedLockRegistry delegate, ObservationRegistry observations) {
		this.delegate = delegate;
		this.observations = observations;
	}

	private Observation observation(LockRequest request) {
		return Observation.createNotStarted(NAME, this.observations)
			.contextualName("lock " + request.label())
			.lowCardinalityKeyValue("lock", request.label());
	}

	/** The failure as the {@code distributed.lock.wait} meter's outcome names it. */
	static String outcome(LockRequest request, Throwable failure) {
		if (failure instanceof LockNotAcquiredException) {
			return request.skipping() ? LockMetrics.SKIP : LockMetrics.TIMEOUT;
		}
		if (failure instanceof QuorumUnavailableException) {
			return LockMetrics.QUORUM_UNAVAILABLE;
		}
		return LockMetrics.ERROR;
	}

	/** A skip is an outcome, not an error of the observation. */
	private static void failed(Observation observation, LockRequest request, Throwable failure) {
		String outcome = outcome(request, failure);
		observation.lowCardinalityKeyValue("outcome", outcome);
		if (!LockMetrics.SKIP.equals(outcome)) {
			observation.error(failure);
		}
	}

	@Override
	public Lease acquire(LockRequest request) {
		return observe(request, () -> this.delegate.acquire(request), (lease) -> LockMetrics.ACQUIRED);
	}

	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		return observe(request, () -> this.delegate.tryAcquire(request), (lease) -> lease.isPresent()
				? LockMetrics.ACQUIRED : request.skipping() ? LockMetrics.SKIP : LockMetrics.TIMEOUT);
	}

	/** A blocking acquisition inside an observation whose outcome the result names. */
	private <T> T observe(LockRequest request, Supplier<T> acquisition, Function<T, String> outcome) {
		Observation observation = observation(request).start();
		try {
			T result = acquisition.get();
			observation.lowCardinalityKeyValue("outcome", outcome.apply(result));
			return result;
		}
		catch (RuntimeException ex) {
			failed(observation, request, ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	@Override
	public CompletableFuture<Lease> acquireAsync(LockRequest request) {
		Observation observation = observation(request).start();
		CompletableFuture<Lease> lease = this.delegate.acquireAsync(request);
		lease.whenComplete((granted, error) -> {
			if (error != null) {
				Throwable cause = (error instanceof CompletionException && error.getCause() != null) ? error.getCause()
						: error;
				failed(observation, request, cause);
			}
			else {
				observation.lowCardinalityKeyValue("outcome", LockMetrics.ACQUIRED);
			}
			observation.stop();
		});
		return lease;
	}

	@Override
	public <T> T execute(LockRequest request, Callable<T> action) {
		try (Lease lease = acquire(request); CurrentLease.Scope scope = CurrentLease.bind(lease)) {
			return action.call();
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new UndeclaredThrowableException(ex);
		}
	}

	@Override
	public Lock asLock(String key) {
		return this.delegate.asLock(key);
	}

	@Override
	public Lock asLock(LockRequest request) {
		return this.delegate.asLock(request);
	}

	@Override
	public boolean isLocked(LockRequest request) {
		return this.delegate.isLocked(request);
	}

	@Override
	public CompletableFuture<Boolean> isLockedAsync(LockRequest request) {
		return this.delegate.isLockedAsync(request);
	}

	@Override
	public boolean isHeldByCurrentThread(LockRequest request) {
		return this.delegate.isHeldByCurrentThread(request);
	}

	@Override
	public boolean isHeldByThisInstance(LockRequest request) {
		return this.delegate.isHeldByThisInstance(request);
	}

}
