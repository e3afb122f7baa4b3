package io.quorumlock.aop;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;

import org.springframework.expression.Expression;

import io.quorumlock.LockMode;
import io.quorumlock.LockOptions;
import io.quorumlock.OnFailure;

/**
 * One {@code @DistributedLock} declaration, parsed and checked once per method and target
 * class.
 *
 * @param method the most specific method, whose parameter names the key refers to
 * @param targetClass the user class of the bean
 * @param description the method as {@code SimpleClassName.method(ParamType)}, for
 * messages
 * @param keySource the key expression as written
 * @param key the parsed key expression
 * @param beanReferences names of the beans the key refers to with {@code @name}
 * @param name the lock name, empty for none
 * @param label the low-cardinality label: the name, else {@code SimpleClassName.method}
 * @param options the annotation's own options (unset ones fall back to the registry)
 * @param onFailure the failure policy
 * @param returnKind how the result is guarded
 * @param argumentIndex the argument each key variable names ({@code #p0}, {@code #a0},
 * {@code #order}), computed once
 * @param mode the lock mode
 * @param permits holders let in at once: 1, or k > 1 for a semaphore
 * @param interruptsOnLoss whether a loss interrupts the method's thread (blocking methods
 * only)
 */
record LockOperation(Method method, Class<?> targetClass, String description, String keySource, Expression key,
		Set<String> beanReferences, String name, String label, LockOptions options, OnFailure onFailure,
		ReturnKind returnKind, Map<String, Integer> argumentIndex, LockMode mode, int permits,
		boolean interruptsOnLoss) {

	boolean skips() {
		return this.onFailure == OnFailure.SKIP;
	}

}
