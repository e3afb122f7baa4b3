package io.quorumlock.shedlock;

/**
 * A {@code @SchedulerLock} or {@code @EnableSchedulerLock} value that the
 * {@link QuorumLockProvider} cannot honour: a duration that does not parse or resolve, is
 * out of range, or is too short for the node timeout. Thrown when the application context
 * starts, with a message such as
 * {@code @SchedulerLock on ReportJob.run(): lockAtMostFor "100ms" is refused: ...}, so
 * that no scheduled run fails for it later.
 */
public class SchedulerLockDeclarationException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String declaration;

	private final String attribute;

	private final String value;

	private final String reason;

	/**
	 * Create a new exception.
	 * @param declaration where the value is declared, such as
	 * {@code @SchedulerLock on ReportJob.run()}
	 * @param attribute the annotation attribute at fault
	 * @param value the attribute's value as written
	 * @param reason what is wrong with it, completing "attribute "value" ..."
	 */
	public SchedulerLockDeclarationException(String declaration, String attribute, String value, String reason) {
		super(declaration + ": " + attribute + " \"" + value + "\" " + reason);
		this.declaration = declaration;
		this.attribute = attribute;
		this.value = value;
		this.reason = reason;
	}

	/**
	 * Where the value is declared.
	 * @return the annotation and the method or class that carries it
	 */
	public String getDeclaration() {
		return this.declaration;
	}

	/**
	 * Annotation attribute at fault ({@code lockAtMostFor}, {@code lockAtLeastFor},
	 * {@code defaultLockAtMostFor} or {@code defaultLockAtLeastFor}).
	 * @return the attribute
	 */
	public String getAttribute() {
		return this.attribute;
	}

	/**
	 * Value of the attribute at fault, as written.
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
