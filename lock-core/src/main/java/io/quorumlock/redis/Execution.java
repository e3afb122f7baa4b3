package io.quorumlock.redis;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.concurrent.Callable;

import io.quorumlock.CurrentLease;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;

/**
 * {@code execute}: run an action with its lease bound as the current lease, then release
 * it. The action's failure stays the outcome, a release failure (such as the lease loss)
 * is kept as suppressed; without one, a loss while the action ran is the outcome.
 */
final class Execution {

	private Execution() {
	}

	static <T> T execute(Lease lease, Callable<T> action, RequestResolver resolver, LockRequest request) {
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
					"checked exception from the action run under " + resolver.describeQuietly(request));
			releaseAfter(lease, wrapped);
			throw wrapped;
		}
		// a loss while the action ran is the outcome (on-lease-lost: throw)
		lease.release();
		return value;
	}

	private static void releaseAfter(Lease lease, Throwable failure) {
		try {
			lease.release();
		}
		catch (RuntimeException releaseFailure) {
			failure.addSuppressed(releaseFailure);
		}
	}

}
