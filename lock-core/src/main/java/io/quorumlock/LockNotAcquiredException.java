package io.quorumlock;

/**
 * The lock is held by someone else and could not be acquired within the allowed wait.
 */
public class LockNotAcquiredException extends LockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new exception.
	 * @param message the message, naming lock, key and figures
	 */
	public LockNotAcquiredException(String message) {
		super(message);
	}

}
