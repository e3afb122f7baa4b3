package io.quorumlock;

/**
 * Fewer than a quorum of Redis nodes answered or were allowed to vote, so no lock could
 * be granted. Thrown at once by a request that does not wait; a waiting request retries
 * rounds that lack a quorum (nodes may come back) and throws it only when the wait runs
 * out and its last round still lacked a quorum. A sibling of
 * {@link LockNotAcquiredException}, not a subclass.
 */
public class QuorumUnavailableException extends LockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new exception.
	 * @param message the message, naming lock, key and figures
	 */
	public QuorumUnavailableException(String message) {
		super(message);
	}

}
