package io.quorumlock.aop;

import java.util.Optional;

import org.aopalliance.intercept.MethodInvocation;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;

/**
 * Holds the lock while the method runs on the calling thread, with the lease bound to
 * {@link io.quorumlock.CurrentLease}; releases it whatever the method returns or throws.
 */
final class BlockingHandler {

	Object invoke(DistributedLockRegistry registry, MethodInvocation invocation, LockRequest request,
			LockOperation operation) throws Throwable {
		Lease lease;
		try {
			lease = registry.acquire(request);
		}
		catch (RuntimeException ex) {
			if (LeaseOutcomes.skipped(operation, ex)) {
				return emptyResult(operation.method().getReturnType());
			}
			throw ex;
		}
		Object result;
		try {
			result = LeaseOutcomes.proceed(lease, invocation);
		}
		catch (Throwable ex) {
			try {
				lease.release();
			}
			catch (RuntimeException releaseFailure) {
				LeaseOutcomes.outcome(ex, releaseFailure);
			}
			throw ex;
		}
		// a lease lost while the method ran surfaces here (on-lease-lost: throw)
		lease.release();
		return result;
	}

	private static Object emptyResult(Class<?> returnType) {
		return (returnType == Optional.class) ? Optional.empty() : null;
	}

}
