package io.quorumlock.aop;

import java.util.Optional;

import org.aopalliance.intercept.MethodInvocation;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
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
		LossInterrupt interrupt = operation.interruptsOnLoss() ? LossInterrupt.arm(lease) : null;
		Object result;
		try {
			result = LeaseOutcomes.proceed(lease, invocation);
		}
		catch (Throwable ex) {
			LeaseLostException stopped = (interrupt != null) ? interrupt.end() : null;
			Throwable failure = ex;
			if (stopped != null) {
				// the method ended on our interrupt: the loss is the outcome
				failure = new LeaseLostException(stopped.getMessage() + "; the method was interrupted", false);
				failure.addSuppressed(ex);
			}
			try {
				lease.release();
			}
			catch (RuntimeException releaseFailure) {
				LeaseOutcomes.outcome(failure, releaseFailure);
			}
			throw failure;
		}
		LeaseLostException stopped = (interrupt != null) ? interrupt.end() : null;
		// a lease lost while the method ran surfaces here (on-lease-lost: throw)
		lease.release();
		if (stopped != null) {
			// interrupted, but the method returned anyway: its result was made without
			// the lock
			throw new LeaseLostException(stopped.getMessage() + "; the method was interrupted", false);
		}
		return result;
	}

	private static Object emptyResult(Class<?> returnType) {
		return (returnType == Optional.class) ? Optional.empty() : null;
	}

}
