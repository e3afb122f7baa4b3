package io.quorumlock.aop;

import java.lang.reflect.Method;

/**
 * Root object of a {@code @DistributedLock} key expression: {@code #root.method},
 * {@code #root.methodName}, {@code #root.target}, {@code #root.targetClass} and
 * {@code #root.args}. Arguments are also variables by name ({@code #order}) and by index
 * ({@code #p0}, {@code #a0}), and beans are reachable as {@code @beanName}.
 */
public final class LockExpressionRootObject {

	private final Method method;

	private final Object target;

	private final Class<?> targetClass;

	private final Object[] args;

	LockExpressionRootObject(Method method, Object target, Class<?> targetClass, Object[] args) {
		this.method = method;
		this.target = target;
		this.targetClass = targetClass;
		this.args = args;
	}

	/**
	 * Method being called.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * Name of the method being called.
	 * @return the method name
	 */
	public String getMethodName() {
		return this.method.getName();
	}

	/**
	 * Bean the method is called on.
	 * @return the target object
	 */
	public Object getTarget() {
		return this.target;
	}

	/**
	 * User class of the bean.
	 * @return the target class
	 */
	public Class<?> getTargetClass() {
		return this.targetClass;
	}

	/**
	 * Arguments of the call.
	 * @return the arguments
	 */
	public Object[] getArgs() {
		return this.args;
	}

}
