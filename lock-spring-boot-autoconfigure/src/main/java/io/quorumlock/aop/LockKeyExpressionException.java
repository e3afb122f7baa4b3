package io.quorumlock.aop;

import io.quorumlock.LockKeyException;

/**
 * The key expression of a {@code @DistributedLock} method gave no usable key for one call
 * (null, empty, a collection with a null, empty or repeated element), or could not be
 * evaluated. The method did not run. Besides the message, it tells which lock, which
 * expression and what went wrong, so that an HTTP answer can name them without the
 * method's signature; and whether the call's arguments are to blame (a missing request
 * field) or the expression itself (a property that no argument type has).
 */
public class LockKeyExpressionException extends LockKeyException {

	private static final long serialVersionUID = 1L;

	private final String method;

	private final String lock;

	private final String expression;

	private final String problem;

	private final boolean fromArguments;

	/**
	 * Create a new exception.
	 * @param method the method, as {@code SimpleClassName.method(ParamType)}
	 * @param lock the lock's label: its name, else {@code SimpleClassName.method}
	 * @param expression the key expression as written
	 * @param problem what went wrong, completing {@code key "expression" ...}, such as
	 * {@code evaluated to null}
	 * @param fromArguments whether the call's arguments gave the unusable key (the
	 * caller's mistake) rather than the expression failing on every call
	 */
	public LockKeyExpressionException(String method, String lock, String expression, String problem,
			boolean fromArguments) {
		super("@DistributedLock on " + method + ": key \"" + expression + "\" " + problem + "; the method did not run");
		this.method = method;
		this.lock = lock;
		this.expression = expression;
		this.problem = problem;
		this.fromArguments = fromArguments;
	}

	/**
	 * Method whose call was refused.
	 * @return the method, as {@code SimpleClassName.method(ParamType)}
	 */
	public String getMethod() {
		return this.method;
	}

	/**
	 * Lock the method takes: the annotation's {@code name}, else
	 * {@code SimpleClassName.method}, as in the {@code lock} tag of the meters.
	 * @return the lock's label
	 */
	public String getLock() {
		return this.lock;
	}

	/**
	 * Key expression as written in the annotation.
	 * @return the expression
	 */
	public String getExpression() {
		return this.expression;
	}

	/**
	 * What went wrong, completing {@code key "expression" ...}.
	 * @return the problem, such as {@code evaluated to null}
	 */
	public String getProblem() {
		return this.problem;
	}

	/**
	 * Whether the call's arguments gave the unusable key (a null or empty value, or a
	 * null met on the way to it, such as {@code #order.customer.id} with no customer):
	 * the caller's mistake. False when the expression itself failed (a property or method
	 * that the argument's type does not have), a mistake in the code.
	 * @return whether the arguments are to blame
	 */
	public boolean isFromArguments() {
		return this.fromArguments;
	}

}
