package io.quorumlock.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;

/**
 * Guards a method that returns a {@code CompletionStage}: acquires without blocking the
 * caller, runs the method once the lease is granted (on the async executor, never on a
 * Redis I/O thread, since the method may do blocking work before it returns its stage),
 * and releases when the stage completes. The caller gets a {@code CompletableFuture} that
 * completes after the release; cancelling it cancels the acquisition, or the method's
 * stage, and releases at once. A lease lost while the method's stage runs ends the
 * caller's future at once with the {@code LeaseLostException}, cancels the method's stage
 * and releases.
 */
final class CompletionStageHandler {

	private final Supplier<Executor> executor;

	CompletionStageHandler(Supplier<Executor> executor) {
		this.executor = executor;
	}

	Object invoke(DistributedLockRegistry registry, MethodInvocation invocation, LockRequest request,
			LockOperation operation) {
		Executor executor = callerRunsWhenRejected(this.executor.get());
		CompletableFuture<Object> result = new CompletableFuture<>();
		CompletableFuture<Lease> acquiring = registry.acquireAsync(request);
		result.whenComplete((value, failure) -> {
			if (result.isCancelled()) {
				acquiring.cancel(false);
			}
		});
		acquiring.whenCompleteAsync((lease, failure) -> {
			if (failure != null) {
				Throwable cause = LeaseOutcomes.unwrap(failure);
				if (LeaseOutcomes.skipped(operation, cause)) {
					result.complete(null);
				}
				else {
					result.completeExceptionally(cause);
				}
				return;
			}
			run(invocation, lease, result, executor);
		}, executor);
		return result;
	}

	private static void run(MethodInvocation invocation, Lease lease, CompletableFuture<Object> result,
			Executor executor) {
		if (result.isDone()) {
			LeaseOutcomes.releaseAsync(lease); // cancelled while acquiring
			return;
		}
		Object returned;
		try {
			returned = LeaseOutcomes.proceed(lease, invocation);
		}
		catch (Throwable ex) {
			complete(lease, null, ex, result, executor);
			return;
		}
		if (returned == null) {
			complete(lease, null, null, result, executor);
			return;
		}
		CompletionStage<?> stage = (CompletionStage<?>) returned;
		result.whenComplete((value, failure) -> {
			if (result.isCancelled()) {
				cancel(stage);
				LeaseOutcomes.releaseAsync(lease);
			}
		});
		// a loss ends the result at once with the LeaseLostException and cancels the
		// method's stage (which stops only what listens to its cancellation)
		lease.whenLost().whenCompleteAsync((loss, error) -> {
			if (loss != null && result.completeExceptionally(loss)) {
				cancel(stage);
				LeaseOutcomes.releaseAsync(lease);
			}
		}, executor);
		stage.whenComplete((value, failure) -> complete(lease, value, failure, result, executor));
	}

	private static void complete(Lease lease, Object value, Throwable failure, CompletableFuture<Object> result,
			Executor executor) {
		Throwable methodFailure = (failure != null) ? LeaseOutcomes.unwrap(failure) : null;
		LeaseOutcomes.releaseAsync(lease).whenCompleteAsync((released, releaseFailure) -> {
			Throwable outcome = LeaseOutcomes.outcome(methodFailure, releaseFailure);
			if (outcome != null) {
				result.completeExceptionally(outcome);
			}
			else {
				result.complete(value);
			}
		}, executor);
	}

	private static void cancel(CompletionStage<?> stage) {
		try {
			stage.toCompletableFuture().cancel(false);
		}
		catch (UnsupportedOperationException ex) {
			// a stage that cannot be cancelled runs to
			// its end; the lease is released anyway
		}
	}

	/**
	 * A rejected task (executor saturated or shutting down) must still run, or the lease
	 * it holds would never be released.
	 */
	private static Executor callerRunsWhenRejected(Executor executor) {
		return (task) -> {
			try {
				executor.execute(task);
			}
			catch (RejectedExecutionException ex) {
				task.run();
			}
		};
	}

}
