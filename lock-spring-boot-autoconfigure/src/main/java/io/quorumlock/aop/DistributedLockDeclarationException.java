package io.quorumlock.aop;

/**
 * A {@code @DistributedLock} declaration is unusable: its key does not parse, a duration
 * does not parse or is out of range, or its method cannot honour
 * {@code onFailure = SKIP}. Thrown when the application context starts (or, for a bean
 * created later, on the first call), with a message such as
 * {@code @DistributedLock on OrderService.pay(Order): lease "3x" is not a duration}.
 */
public class DistributedLockDeclarationException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String method;

	private final String attribute;

	private final String value;

	private final String reason;

	/**
	 * Create a new exception.
	 * @param method the method, as {@code SimpleClassName.method(ParamType)}
	 * @param attribute the annotation attribute at fault
	 * @param value the attribute's value
	 * @param reason what is wrong with it, completing "attribute "value" ..."
	 */
	public DistributedLockDeclarationException(String method, String attribute, String value, String reason) {
		this(method, attribute, value, reason, null);
	}

	/**
	 * Create a new exception with a cause.
	 * @param method the method, as {@code SimpleClassName.method(ParamType)}
	 * @param attribute the annotation attribute at fault
	 * @param value the attribute's value
	 * @param reason what is wrong with it, completing "attribute "value" ..."
	 * @param cause the cause, or {@code null}
	 */
	public DistributedLockDeclarationException(String method, String attribute, String value, String reason,
			Throwable cause) {
		super("@DistributedLock on " + method + ": " + attribute + " \"" + value + "\" " + reason, cause);
		this.method = method;
		this.attribute = attribute;
		this.value = value;
		this.reason = reason;
	}

	/**
	 * Method that carries the declaration.
	 * @return the method, as {@code SimpleClassName.method(ParamType)}
	 */
	public String getMethod() {
		return this.method;
	}

	/**
	 * Annotation attribute at fault ({@code key}, {@code lease}, {@code waitAtMost},
	 * {@code holdAtMost}, {@code name} or {@code onFailure}).
	 * @return the attribute
	 */
	public String getAttribute() {
		return this.attribute;
	}

	/**
	 * Value of the attribute at fault.
	 * @return the value
	 */
	public String getValue() {
		return this.value;
	}

	/**
	 * What is wrong with the value.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

}
