package io.quorumlock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelEvaluationException;
import org.springframework.expression.spel.SpelMessage;
import org.springframework.util.ObjectUtils;

import io.quorumlock.LockKeyException;
import io.quorumlock.LockMode;
import io.quorumlock.LockRequest;

/**
 * Parses key expressions once per method and expression, and evaluates them into the keys
 * of a {@link LockRequest}.
 */
final class LockKeyEvaluator extends CachedExpressionEvaluator {

	private final Map<ExpressionKey, Expression> expressions = new ConcurrentHashMap<>(64);

	/**
	 * Parse (or take from the cache) the key expression of a method.
	 * @throws org.springframework.expression.ParseException if it does not parse
	 */
	Expression parse(String expression, Method method, Class<?> targetClass) {
		return getExpression(this.expressions, new AnnotatedElementKey(method, targetClass), expression);
	}

	/** Parameter names as the evaluation context sees them, or null if unknown. */
	String[] parameterNames(Method method) {
		return getParameterNameDiscoverer().getParameterNames(method);
	}

	/**
	 * Evaluate the key of a call and build its request: one key, or every element of a
	 * collection or array.
	 * @throws LockKeyException naming the method and the expression if the key is null,
	 * empty, or a collection with a null, empty or repeated element
	 */
	LockRequest request(LockOperation operation, Object target, Object[] args, BeanResolver beans) {
		Object value = evaluate(operation, target, args, beans);
		LockRequest request = toRequest(operation, value).name(operation.name())
			.label(operation.label())
			.options(operation.options());
		if (operation.mode() != LockMode.EXCLUSIVE) {
			request = request.mode(operation.mode());
		}
		if (operation.permits() != 1) {
			if (request.keys().size() > 1) {
				throw keyException(operation, "evaluated to " + request.keys().size() + " keys " + request.keys()
						+ ", but permits = " + operation.permits() + " applies to one key at a time");
			}
			request = request.permits(operation.permits());
		}
		if (operation.skips()) {
			// a refusal by contention is a skipped call (onFailure = SKIP), not a failure
			request = request.skipping(true);
		}
		return request;
	}

	private Object evaluate(LockOperation operation, Object target, Object[] args, BeanResolver beans) {
		LockExpressionRootObject root = new LockExpressionRootObject(operation.method(), target,
				operation.targetClass(), args);
		LockEvaluationContext context = new LockEvaluationContext(root, operation.argumentIndex(), args, beans);
		try {
			return operation.key().getValue(context);
		}
		catch (EvaluationException ex) {
			LockKeyException failure = keyException(operation, "could not be evaluated: " + ex.getMessage(),
					nullOnTheWay(ex));
			failure.initCause(ex);
			throw failure;
		}
	}

	private static LockRequest toRequest(LockOperation operation, Object value) {
		if (value == null) {
			throw keyException(operation, "evaluated to null");
		}
		if (!(value instanceof Collection<?>) && !value.getClass().isArray()) {
			String key = String.valueOf(value);
			if (key.isEmpty()) {
				throw keyException(operation, "evaluated to an empty string");
			}
			return of(operation, () -> LockRequest.of(key));
		}
		Collection<?> elements = (value instanceof Collection<?> collection) ? collection
				: Arrays.asList(ObjectUtils.toObjectArray(value));
		if (elements.isEmpty()) {
			throw keyException(operation,
					"evaluated to an empty " + ((value instanceof Collection) ? "collection" : "array"));
		}
		List<String> keys = new ArrayList<>(elements.size());
		Set<String> seen = new HashSet<>();
		for (Object element : elements) {
			String key = (element != null) ? String.valueOf(element) : null;
			if (key == null || key.isEmpty()) {
				throw keyException(operation, "evaluated to " + ObjectUtils.nullSafeToString(value) + ", which has "
						+ ((key == null) ? "a null" : "an empty") + " element");
			}
			if (!seen.add(key)) {
				throw keyException(operation,
						"evaluated to " + ObjectUtils.nullSafeToString(value) + ", where '" + key + "' appears twice");
			}
			keys.add(key);
		}
		return of(operation, () -> LockRequest.of(keys));
	}

	/** Build the request, naming the method if the API still refuses the keys. */
	private static LockRequest of(LockOperation operation, Supplier<LockRequest> factory) {
		try {
			return factory.get();
		}
		catch (LockKeyException ex) {
			LockKeyException failure = keyException(operation, "is unusable: " + ex.getMessage());
			failure.initCause(ex);
			throw failure;
		}
	}

	private static LockKeyException keyException(LockOperation operation, String problem) {
		return keyException(operation, problem, true);
	}

	private static LockKeyException keyException(LockOperation operation, String problem, boolean fromArguments) {
		return new LockKeyExpressionException(operation.description(), operation.label(), operation.keySource(),
				problem, fromArguments);
	}

	/**
	 * Whether evaluation stopped at a null value on the way to the key
	 * ({@code #order.customer.id} with no customer): the arguments' doing, not the
	 * expression's.
	 */
	private static boolean nullOnTheWay(EvaluationException ex) {
		return ex instanceof SpelEvaluationException spel
				&& (spel.getMessageCode() == SpelMessage.PROPERTY_OR_FIELD_NOT_READABLE_ON_NULL
						|| spel.getMessageCode() == SpelMessage.METHOD_CALL_ON_NULL_OBJECT_NOT_ALLOWED
						|| spel.getMessageCode() == SpelMessage.CANNOT_INDEX_INTO_NULL_VALUE);
	}

}
