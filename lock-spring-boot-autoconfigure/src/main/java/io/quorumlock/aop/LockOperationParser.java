package io.quorumlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.util.ClassUtils;

import io.quorumlock.DistributedLock;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRules;
import io.quorumlock.OnFailure;

/**
 * Reads a {@code @DistributedLock} declaration into a {@link LockOperation}, checking
 * everything that can be checked without the registry: the key parses and refers only to
 * parameters that exist, durations parse and are in range, and {@code SKIP} has an empty
 * result to return.
 */
final class LockOperationParser {

	private final LockKeyEvaluator evaluator;

	LockOperationParser(LockKeyEvaluator evaluator) {
		this.evaluator = evaluator;
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
		Expression key = parseKey(annotation.key(), specific, userClass, description);
		String name = annotation.name();
		if (name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
			throw new DistributedLockDeclarationException(description, "name", name,
					"must not contain '{' or '}': they would move the Redis Cluster hash slot");
		}
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
		String label = name.isEmpty() ? userClass.getSimpleName() + "." + specific.getName() : name;
		return new LockOperation(specific, userClass, description, annotation.key(), key, beanReferences(key), name,
				label, options, annotation.onFailure(), returnKind, argumentIndex(specific));
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

	private Expression parseKey(String source, Method method, Class<?> targetClass, String description) {
		if (source.isBlank()) {
			throw new DistributedLockDeclarationException(description, "key", source,
					"is empty; give a SpEL expression such as \"#order.id\"");
		}
		Expression expression;
		try {
			expression = this.evaluator.parse(source, method, targetClass);
		}
		catch (ParseException ex) {
			throw new DistributedLockDeclarationException(description, "key", source,
					"is not a valid SpEL expression: " + ex.getSimpleMessage(), ex);
		}
		checkVariables(source, expression, method, description);
		checkRootReferences(source, expression, method, description);
		return expression;
	}

	/**
	 * Root properties and methods a key may name without '#': those of the root object.
	 */
	private static final Set<String> ROOT_NAMES = Set.of("method", "methodName", "target", "targetClass", "args");

	/**
	 * A bare name evaluated against the root object ({@code report} in
	 * {@code report-job}) must be one of its properties or methods; anything else fails
	 * on every call, so it is refused here with the likely fix.
	 */
	private void checkRootReferences(String source, Expression expression, Method method, String description) {
		if (!(expression instanceof SpelExpression spel)) {
			return;
		}
		String unknown = unknownRootReference(spel.getAST());
		if (unknown == null) {
			return;
		}
		String[] names = this.evaluator.parameterNames(method);
		boolean parameter = names != null && Arrays.asList(names).contains(unknown);
		String fix;
		if (parameter) {
			fix = "did you mean \"#" + unknown + "\" (the parameter)?";
		}
		else if (source.indexOf('\'') < 0 && source.indexOf('#') < 0 && source.indexOf('@') < 0) {
			fix = "for a constant key write it in single quotes: did you mean \"'" + source.trim() + "'\"?";
		}
		else {
			fix = "parameters are written #name, beans @name, constants in single quotes";
		}
		throw new DistributedLockDeclarationException(description, "key", source,
				"refers to '" + unknown + "', which is no parameter, bean or root property ("
						+ String.join(", ", new TreeSet<>(ROOT_NAMES)) + ") and would fail on every call; " + fix);
	}

	/**
	 * The first bare property or method name evaluated against the root that it lacks.
	 */
	private static String unknownRootReference(SpelNode node) {
		if (node instanceof PropertyOrFieldReference reference) {
			return ROOT_NAMES.contains(reference.getName()) ? null : reference.getName();
		}
		if (node instanceof MethodReference reference) {
			String name = reference.getName();
			boolean known = Arrays.stream(LockExpressionRootObject.class.getMethods())
				.anyMatch((candidate) -> candidate.getName().equals(name));
			if (!known) {
				return name;
			}
		}
		if (node instanceof Projection || node instanceof Selection) {
			return null; // evaluated against each element
		}
		// after the first step of a chain (a.b.c), names are evaluated against the step
		// before
		int children = (node instanceof CompoundExpression) ? Math.min(1, node.getChildCount()) : node.getChildCount();
		for (int i = 0; i < children; i++) {
			String found = unknownRootReference(node.getChild(i));
			if (found != null) {
				return found;
			}
		}
		return null;
	}

	/** Every {@code #variable} must be a parameter, by name or index, or root/this. */
	private void checkVariables(String source, Expression expression, Method method, String description) {
		if (!(expression instanceof SpelExpression spel)) {
			return;
		}
		Set<String> known = new LinkedHashSet<>();
		String[] names = this.evaluator.parameterNames(method);
		if (names != null) {
			known.addAll(Arrays.asList(names));
		}
		for (int i = 0; i < method.getParameterCount(); i++) {
			known.add("p" + i);
			known.add("a" + i);
		}
		Set<String> allowed = new LinkedHashSet<>(known);
		allowed.add("root");
		allowed.add("this");
		for (String variable : variables(spel.getAST(), new TreeSet<>())) {
			if (!allowed.contains(variable)) {
				String hint = known.isEmpty() ? "the method has no parameters"
						: "parameters: " + known.stream().map((n) -> "#" + n).collect(Collectors.joining(", "));
				if (names == null && method.getParameterCount() > 0) {
					hint += "; parameter names need the compiler's -parameters flag";
				}
				throw new DistributedLockDeclarationException(description, "key", source,
						"refers to #" + variable + ", which is not a parameter (" + hint + ")");
			}
		}
	}

	private static Set<String> variables(SpelNode node, Set<String> into) {
		if (node instanceof VariableReference) {
			into.add(node.toStringAST().substring(1));
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			variables(node.getChild(i), into);
		}
		return into;
	}

	private static Set<String> beanReferences(Expression expression) {
		Set<String> names = new TreeSet<>();
		if (expression instanceof SpelExpression spel) {
			collectBeans(spel.getAST(), names);
		}
		return Set.copyOf(names);
	}

	private static void collectBeans(SpelNode node, Set<String> into) {
		if (node instanceof BeanReference) {
			String text = node.toStringAST();
			text = text.startsWith("@") ? text.substring(1) : text;
			if (text.length() > 1 && text.startsWith("'") && text.endsWith("'")) {
				text = text.substring(1, text.length() - 1);
			}
			into.add(text);
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collectBeans(node.getChild(i), into);
		}
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
			// the compiled form of a suspend function: it returns at its first suspension
			// point, so a lock held "while it runs" would be released with its work going
			// on
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
