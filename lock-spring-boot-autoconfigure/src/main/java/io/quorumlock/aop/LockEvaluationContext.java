package io.quorumlock.aop;

import java.util.Map;

import org.springframework.expression.BeanResolver;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * Evaluation context of one call: the arguments are variables by name ({@code #order})
 * and by index ({@code #p0}, {@code #a0}), resolved through an index computed once per
 * method instead of being copied into the variable map on every call (what Spring's
 * {@code MethodBasedEvaluationContext} does, and most of the aspect's own cost).
 */
final class LockEvaluationContext extends StandardEvaluationContext {

	private final Map<String, Integer> argumentIndex;

	private final Object[] arguments;

	LockEvaluationContext(Object rootObject, Map<String, Integer> argumentIndex, Object[] arguments,
			BeanResolver beanResolver) {
		super(rootObject);
		this.argumentIndex = argumentIndex;
		this.arguments = arguments;
		if (beanResolver != null) {
			setBeanResolver(beanResolver);
		}
	}

	@Override
	public Object lookupVariable(String name) {
		Integer index = this.argumentIndex.get(name);
		if (index != null && index < this.arguments.length) {
			return this.arguments[index];
		}
		return super.lookupVariable(name);
	}

}
