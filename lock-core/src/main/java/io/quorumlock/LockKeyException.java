package io.quorumlock;

/**
 * A lock key is unusable: null, empty, too long, or a collection with null or duplicate
 * elements. The guarded work did not run.
 */
public class LockKeyException extends LockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new exception.
	 * @param message the message, naming the method or lock and the offending key
	 */
	public LockKeyException(String message) {
		super(message);
	}

}
