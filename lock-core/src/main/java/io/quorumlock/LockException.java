package io.quorumlock;

/**
 * Base of every exception quorumlock throws. Unchecked. Messages name the lock, the key
 * and the figures that led to the failure.
 */
public abstract class LockException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new exception.
	 * @param message the message, naming lock, key and figures
	 */
	protected LockException(String message) {
		super(message);
	}

	/**
	 * Create a new exception with a cause.
	 * @param message the message, naming lock, key and figures
	 * @param cause the cause
	 */
	protected LockException(String message, Throwable cause) {
		super(message, cause);
	}

}
