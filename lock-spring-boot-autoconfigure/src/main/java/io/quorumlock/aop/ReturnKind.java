package io.quorumlock.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.springframework.util.ClassUtils;

/**
 * How an annotated method's result is guarded, chosen from its declared return type.
 */
enum ReturnKind {

	/** Held while the method runs on the calling thread. */
	BLOCKING,

	/** Held until the returned {@code CompletionStage} completes. */
	COMPLETION_STAGE,

	/** Held until the returned {@code Mono} completes, errors or is cancelled. */
	MONO,

	/** Held until the returned {@code Flux} completes, errors or is cancelled. */
	FLUX;

	static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			ReturnKind.class.getClassLoader());

	/**
	 * The kind for a declared return type.
	 * @param type the declared return type
	 * @return the kind
	 * @throws IllegalArgumentException with the reason if the type is asynchronous but
	 * not one this interceptor can hold a lock across
	 */
	static ReturnKind of(Class<?> type) {
		if (REACTOR_PRESENT) {
			ReturnKind reactive = ReactorHandler.kindOf(type);
			if (reactive != null) {
				return reactive;
			}
		}
		if (CompletionStage.class.isAssignableFrom(type)) {
			if (!type.isAssignableFrom(CompletableFuture.class)) {
				throw new IllegalArgumentException(
						"is not supported: an asynchronous method must return CompletionStage or CompletableFuture");
			}
			return COMPLETION_STAGE;
		}
		return BLOCKING;
	}

}
