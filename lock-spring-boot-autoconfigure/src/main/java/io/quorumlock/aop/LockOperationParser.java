package io.quorumlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;

import io.quorumlock.DistributedLock;
import io.quorumlock.LockMode;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRules;
import io.quorumlock.OnFailure;

/**
 * Reads a {@code @DistributedLock} declaration into a {@link LockOperation}, checking
 * everything that can be checked without the registry: the key parses and refers only to
 * parameters that exist ({@link LockKeyParser}), durations parse and are in range, and
 * {@code SKIP} has an empty result to return.
 */
final class LockOperationParser {

	private final LockKeyEvaluator evaluator;

	private final LockKeyParser keys;

	LockOperationParser(LockKeyEvaluator evaluator) {
		this.evaluator = evaluator;
		this.keys = new LockKeyParser(evaluator);
	}

	/**
	 * The annotation on a method as called on a target class: on the most specific
	 * method, else on the method as declared (an interface).
	 */
	static DistributedLock findAnnotation(Method method, Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
		if (annotation == null && specific != method) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		}
		return annotation;
	}

	/**
	 * Parse the declaration of a method.
	 * @return the operation, or {@code null} if the method is not annotated
	 * @throws DistributedLockDeclarationException if the declaration is unusable
	 */
	LockOperation parse(Method method, Class<?> targetClass) {
		Class<?> userClass = ClassUtils.getUserClass((targetClass != null) ? targetClass : method.getDeclaringClass());
		DistributedLock annotation = findAnnotation(method, userClass);
		if (annotation == null) {
			return null;
		}
		Method specific = AopUtils.getMostSpecificMethod(method, userClass);
		String description = describe(userClass, specific);
		Expression key = this.keys.parse(annotation.key(), specific, userClass, description);
		String name = annotation.name();
		if (name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
			throw new DistributedLockDeclarationException(description, "name", name,
					"must not contain '{' or '}': they would move the Redis Cluster hash slot");
		}
		checkModeAndPermits(annotation, description);
		LockOptions options = LockOptions.none();
		Optional<Duration> lease = duration(annotation.lease(), "lease", description, false);
		if (lease.isPresent()) {
			options = options.lease(lease.get());
		}
		Optional<Duration> waitAtMost = duration(annotation.waitAtMost(), "waitAtMost", description, true);
		if (waitAtMost.isPresent()) {
			options = options.waitAtMost(waitAtMost.get());
		}
		Optional<Duration> holdAtMost = duration(annotation.holdAtMost(), "holdAtMost", description, false);
		if (holdAtMost.isPresent()) {
			Optional<String> problem = lease.flatMap((value) -> LockRules.holdAtMostProblem(holdAtMost.get(), value));
			if (problem.isPresent()) {
				throw new DistributedLockDeclarationException(description, "holdAtMost", annotation.holdAtMost(),
						"is refused: " + problem.get());
			}
			options = options.holdAtMost(holdAtMost.get());
		}
		Optional<Duration> holdAtLeast = duration(annotation.holdAtLeast(), "holdAtLeast", description, true);
		if (holdAtLeast.isPresent()) {
			Optional<String> problem = lease
				.flatMap((value) -> LockRules.holdAtLeastProblem(holdAtLeast.get(), value, annotation.renew()));
			if (problem.isPresent()) {
				throw new DistributedLockDeclarationException(description, "holdAtLeast", annotation.holdAtLeast(),
						"is refused: " + problem.get() + " (renew = false)");
			}
			options = options.holdAtLeast(holdAtLeast.get());
		}
		// renew defaults to true in the annotation, so only an explicit false is the
		// annotation's own choice; true leaves quorumlock.instances.<name>.renew and
		// quorumlock.renew in charge.
		if (!annotation.renew()) {
			options = options.renew(false);
		}
		ReturnKind returnKind = returnKind(specific, annotation.onFailure(), description);
		if (annotation.interruptOnLoss() && returnKind != ReturnKind.BLOCKING) {
			throw new DistributedLockDeclarationException(description, "interruptOnLoss", "true",
					"applies only to a method that runs on the calling thread: an asynchronous or reactive "
							+ "result already ends with a LeaseLostException when the lease is lost");
		}
		String label = name.isEmpty() ? userClass.getSimpleName() + "." + specific.getName() : name;
		return new LockOperation(specific, userClass, description, annotation.key(), key,
				LockKeyParser.beanReferences(key), name, label, options, annotation.onFailure(), returnKind,
				argumentIndex(specific), annotation.mode(), annotation.permits(), annotation.interruptOnLoss());
	}

	/**
	 * {@code permits} is at least 1, and above 1 only with {@code mode = EXCLUSIVE}
	 * (permits bound the holders of an exclusive lock; shared holders are unbounded).
	 */
	private static void checkModeAndPermits(DistributedLock annotation, String description) {
		int permits = annotation.permits();
		if (permits < 1) {
			throw new DistributedLockDeclarationException(description, "permits", String.valueOf(permits),
					"must be at least 1 (1 is a plain lock, k > 1 lets at most k holders in at once)");
		}
		if (permits > 1 && annotation.mode() == LockMode.SHARED) {
			throw new DistributedLockDeclarationException(description, "permits", String.valueOf(permits),
					"is above 1 with mode = SHARED: permits bound the holders of an EXCLUSIVE lock, "
							+ "shared holders are unbounded; use one or the other");
		}
	}

	/**
	 * Key variables and the argument each one names: {@code p0}/{@code a0} by index, then
	 * the parameter names (which win on a clash, as in Spring's method-based contexts).
	 */
	private Map<String, Integer> argumentIndex(Method method) {
		Map<String, Integer> index = new HashMap<>();
		for (int i = 0; i < method.getParameterCount(); i++) {
			index.put("p" + i, i);
			index.put("a" + i, i);
		}
		String[] names = this.evaluator.parameterNames(method);
		if (names != null) {
			for (int i = 0; i < names.length; i++) {
				index.put(names[i], i);
			}
		}
		return Map.copyOf(index);
	}

	private static Optional<Duration> duration(String text, String attribute, String description, boolean zeroAllowed) {
		if (text.isEmpty()) {
			return Optional.empty();
		}
		Duration duration;
		try {
			duration = LockDurations.parse(text);
		}
		catch (IllegalArgumentException ex) {
			throw new DistributedLockDeclarationException(description, attribute, text,
					"is not a duration; use e.g. \"500ms\", \"30s\", \"2m\" or \"PT30S\"", ex);
		}
		if (duration.isNegative()) {
			throw new DistributedLockDeclarationException(description, attribute, text, "must not be negative");
		}
		if (duration.isZero() && !zeroAllowed) {
			throw new DistributedLockDeclarationException(description, attribute, text, "must be positive");
		}
		return Optional.of(duration);
	}

	/** The last parameter of a Kotlin suspend function as compiled, matched by name. */
	private static final String KOTLIN_CONTINUATION = "kotlin.coroutines.Continuation";

	private static ReturnKind returnKind(Method method, OnFailure onFailure, String description) {
		Class<?> type = method.getReturnType();
		if (onFailure == OnFailure.SKIP && type.isPrimitive() && type != void.class) {
			throw new DistributedLockDeclarationException(description, "onFailure", "SKIP",
					"needs an empty result, but the method returns " + type.getName()
							+ "; return a wrapper type or Optional, or use THROW");
		}
		Class<?>[] parameters = method.getParameterTypes();
		if (parameters.length > 0 && KOTLIN_CONTINUATION.equals(parameters[parameters.length - 1].getName())) {
			// the compiled form of a suspend function: it returns
			// at its first suspension point, so a lock held "while
			// it runs" would be released with its work going on
			throw new DistributedLockDeclarationException(description, "method", method.getName(),
					"is a Kotlin suspend function, which is not supported: it returns at its first suspension "
							+ "while its work goes on; return a Mono, Flux or CompletableFuture instead "
							+ "(for example with kotlinx.coroutines' mono { } or future { })");
		}
		if (Future.class.isAssignableFrom(type) && !CompletionStage.class.isAssignableFrom(type)) {
			throw new DistributedLockDeclarationException(description, "return type", type.getName(),
					"is not supported: the lock would be released when the method returns, while its work goes on, "
							+ "and a plain Future cannot be observed without blocking; return CompletableFuture or "
							+ "CompletionStage");
		}
		try {
			return ReturnKind.of(type);
		}
		catch (IllegalArgumentException ex) {
			throw new DistributedLockDeclarationException(description, "return type", type.getName(), ex.getMessage());
		}
	}

	/** {@code SimpleClassName.method(ParamType, ...)}. */
	static String describe(Class<?> targetClass, Method method) {
		return targetClass.getSimpleName() + "." + method.getName() + "("
				+ Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", "))
				+ ")";
	}

}
