package io.quorumlock;

/**
 * A thread holding a key {@link LockMode#SHARED shared} asked for it exclusively. There
 * is no upgrade from shared to exclusive: two shared holders upgrading at once would each
 * wait for the other forever. Release the shared lease first, or take the key exclusively
 * from the start (an exclusive holder may re-enter as shared).
 */
public class LockUpgradeException extends LockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new exception.
	 * @param message the message, naming the lock and the key
	 */
	public LockUpgradeException(String message) {
		super(message);
	}

}
