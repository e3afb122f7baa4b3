package io.quorumlock.aop;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import reactor.core.CorePublisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Signal;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockRequest;

/**
 * Guards a method that returns a {@code Mono} or {@code Flux}. Nothing happens until
 * subscription; then the lock is acquired without blocking, the method is called on the
 * thread the registry hands the lease over on (never a Redis I/O thread; the method
 * should still only assemble its publisher), with the lease bound to
 * {@link io.quorumlock.CurrentLease} while it does, and the lease is held until that
 * publisher completes, errors or is cancelled, then released with
 * {@link Lease#releaseAsync()}. Cancelling while the lock is still being acquired cancels
 * the acquisition and releases a lease granted meanwhile. Each subscription acquires anew
 * and calls the method anew. Loaded only when Reactor is on the classpath.
 */
final class ReactorHandler {

	/** The kind for a declared return type, or {@code null} if it is not reactive. */
	static ReturnKind kindOf(Class<?> type) {
		if (type == Mono.class) {
			return ReturnKind.MONO;
		}
		if (type == Flux.class || type == Publisher.class || type == CorePublisher.class) {
			return ReturnKind.FLUX;
		}
		if (Publisher.class.isAssignableFrom(type)) {
			throw new IllegalArgumentException(
					"is not supported: a reactive method must return Mono, Flux or Publisher");
		}
		return null;
	}

	/** An error publisher of the given kind. */
	static Object failed(ReturnKind kind, Throwable failure) {
		return (kind == ReturnKind.MONO) ? Mono.error(failure) : Flux.error(failure);
	}

	Object invoke(DistributedLockRegistry registry, Supplier<MethodInvocation> invocations, LockRequest request,
			LockOperation operation) {
		Mono<Lease> lease = acquire(registry, request);
		if (operation.skips()) {
			lease = lease.onErrorResume((ex) -> LeaseOutcomes.skipped(operation, ex), (ex) -> Mono.empty());
		}
		if (operation.returnKind() == ReturnKind.MONO) {
			return lease.flatMap((granted) -> mono(granted, invocations.get()));
		}
		return lease.flatMapMany((granted) -> flux(granted, invocations.get()));
	}

	/**
	 * A lazy acquisition: a cancelled subscriber cancels it, and a lease that is granted
	 * anyway is released (release is idempotent, so a lease that did reach the subscriber
	 * is released only once).
	 */
	private static Mono<Lease> acquire(DistributedLockRegistry registry, LockRequest request) {
		return Mono.create((sink) -> {
			CompletableFuture<Lease> acquiring = registry.acquireAsync(request);
			sink.onCancel(() -> {
				acquiring.cancel(false);
				acquiring.thenAccept(LeaseOutcomes::releaseAsync);
			});
			acquiring.whenComplete((granted, failure) -> {
				if (acquiring.isCancelled()) {
					return; // the subscriber is gone, nobody to tell
				}
				if (failure != null) {
					sink.error(LeaseOutcomes.unwrap(failure));
				}
				else {
					sink.success(granted);
				}
			});
		});
	}

	private static Mono<Object> mono(Lease lease, MethodInvocation invocation) {
		Publisher<?> publisher;
		try {
			publisher = call(lease, invocation);
		}
		catch (Throwable ex) {
			return released(lease, Signal.error(ex)).dematerialize();
		}
		Mono<Object> source = (publisher != null) ? Mono.from(publisher) : Mono.empty();
		// a loss ends it at once with the LeaseLostException, cancelling the method's
		// publisher
		source = Mono.firstWithSignal(source, Mono.fromCompletionStage(lease.whenLost()).flatMap(Mono::error));
		// the value is emitted only once the lease is released: a Mono's value is its
		// completion, and a lease lost meanwhile must be able to fail it instead
		return source.materialize()
			.flatMap((signal) -> released(lease, signal))
			.<Object>dematerialize()
			.doOnCancel(() -> LeaseOutcomes.releaseAsync(lease));
	}

	private static Flux<Object> flux(Lease lease, MethodInvocation invocation) {
		Publisher<?> publisher;
		try {
			publisher = call(lease, invocation);
		}
		catch (Throwable ex) {
			return released(lease, Signal.error(ex)).<Object>dematerialize().flux();
		}
		Flux<Object> source = (publisher != null) ? Flux.from(publisher) : Flux.empty();
		// a loss ends it at once with the LeaseLostException, cancelling the method's
		// publisher
		source = source.takeUntilOther(Mono.fromCompletionStage(lease.whenLost()))
			.concatWith(Mono.defer(() -> lossOf(lease)));
		return source.onErrorResume((failure) -> released(lease, Signal.error(failure)).dematerialize())
			.concatWith(Mono.defer(() -> released(lease, Signal.complete())).dematerialize())
			.doOnCancel(() -> LeaseOutcomes.releaseAsync(lease));
	}

	/** An error with the lease's loss if it was lost, else empty. */
	private static Mono<Object> lossOf(Lease lease) {
		LeaseLostException loss = lease.whenLost().toCompletableFuture().getNow(null);
		return (loss != null) ? Mono.error(loss) : Mono.empty();
	}

	@SuppressWarnings("unchecked")
	private static Publisher<Object> call(Lease lease, MethodInvocation invocation) throws Throwable {
		return (Publisher<Object>) LeaseOutcomes.proceed(lease, invocation);
	}

	/**
	 * Release, then replay the method's terminal signal, merged with a release failure.
	 */
	private static Mono<Signal<Object>> released(Lease lease, Signal<Object> signal) {
		return Mono.fromCompletionStage(() -> LeaseOutcomes.releaseAsync(lease))
			.then(Mono.just(signal))
			.onErrorResume((releaseFailure) -> {
				Throwable outcome = LeaseOutcomes.outcome(signal.getThrowable(), releaseFailure);
				return Mono.just(outcome == signal.getThrowable() ? signal : Signal.error(outcome));
			});
	}

}
