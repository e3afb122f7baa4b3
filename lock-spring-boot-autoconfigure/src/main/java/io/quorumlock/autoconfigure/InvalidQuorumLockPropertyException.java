package io.quorumlock.autoconfigure;

/**
 * A {@code quorumlock.*} property has a value the engine cannot work with. The message
 * names the property and its value (with any password masked).
 */
public class InvalidQuorumLockPropertyException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final String property;

	private final String value;

	private final String reason;

	/**
	 * Create a new exception.
	 * @param property the property, such as {@code quorumlock.nodes[1]}
	 * @param value the value, already free of passwords
	 * @param reason what is wrong with it
	 */
	public InvalidQuorumLockPropertyException(String property, String value, String reason) {
		super(property + "=" + value + ": " + reason);
		this.property = property;
		this.value = value;
		this.reason = reason;
	}

	/**
	 * Property at fault.
	 * @return the property name
	 */
	public String getProperty() {
		return this.property;
	}

	/**
	 * Value of the property, with any password masked.
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
