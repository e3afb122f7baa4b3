package io.quorumlock;

/**
 * A lease expired, or its renewal lost the quorum, before it was released: the work that
 * ran under it may have overlapped with another holder.
 */
public class LeaseLostException extends LockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new exception.
	 * @param message the message, naming lock, key and figures
	 */
	public LeaseLostException(String message) {
		super(message);
	}

}
