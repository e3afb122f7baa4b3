package io.quorumlock.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.quorumlock.CurrentLease;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.QuorumUnavailableException;

/**
 * What the handlers share about leases and failures.
 */
final class LeaseOutcomes {

	private static final Log logger = LogFactory.getLog(LeaseOutcomes.class);

	private LeaseOutcomes() {
	}

	/**
	 * Whether {@code onFailure = SKIP} turns this failure into an empty result; if so,
	 * says at DEBUG which lock the skipped call wanted (a skipped {@code @Scheduled} run
	 * is then visible in the log as well as in the {@code distributed.lock.wait}
	 * outcome).
	 */
	static boolean skipped(LockOperation operation, Throwable failure) {
		if (!operation.skips() || !isNotAcquired(failure)) {
			return false;
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Skipped " + operation.description() + ": lock '" + operation.label() + "' not acquired ("
					+ failure.getMessage() + ")");
		}
		return true;
	}

	/**
	 * Whether a failure is one that {@code onFailure = SKIP} turns into an empty result.
	 */
	static boolean isNotAcquired(Throwable failure) {
		return failure instanceof LockNotAcquiredException || failure instanceof QuorumUnavailableException;
	}

	/** The failure behind the wrappers futures add. */
	static Throwable unwrap(Throwable failure) {
		Throwable current = failure;
		while ((current instanceof CompletionException || current instanceof ExecutionException)
				&& current.getCause() != null) {
			current = current.getCause();
		}
		return current;
	}

	/**
	 * Proceed with the lease bound to {@link CurrentLease} on this thread; a lease that
	 * is no longer valid (the grant, or this thread, was delayed past its validity) runs
	 * nothing and fails with a {@link LeaseLostException}, which every handler then
	 * reports as the method's failure after releasing the lease. A loss rather than
	 * {@code LockNotAcquiredException}: the lock was granted and then lost, and
	 * {@code onFailure = SKIP} must not hide that as if another holder had it.
	 */
	static Object proceed(Lease lease, MethodInvocation invocation) throws Throwable {
		if (!lease.isValid()) {
			throw new LeaseLostException(
					lease + ": lease no longer valid when " + invocation.getMethod().getDeclaringClass().getSimpleName()
							+ "." + invocation.getMethod().getName() + " was about to run; the method was not run");
		}
		CurrentLease.Scope scope = CurrentLease.bind(lease);
		try {
			return invocation.proceed();
		}
		finally {
			scope.close();
		}
	}

	/** Release without blocking; a release that throws becomes a failed stage. */
	static CompletionStage<Void> releaseAsync(Lease lease) {
		try {
			return lease.releaseAsync();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * The outcome once the lease is released: the method's own failure wins and keeps a
	 * release failure (such as the lease loss) as suppressed; otherwise a release failure
	 * is the outcome.
	 * @return the failure to report, or {@code null} for success
	 */
	static Throwable outcome(Throwable methodFailure, Throwable releaseFailure) {
		Throwable released = (releaseFailure != null) ? unwrap(releaseFailure) : null;
		if (methodFailure != null) {
			if (released != null && released != methodFailure) {
				methodFailure.addSuppressed(released);
			}
			return methodFailure;
		}
		return released;
	}

}
