package io.quorumlock.etcd;

import io.quorumlock.LockException;

/**
 * The etcd registry refused a request for one of several
 * {@link io.quorumlock.LockRequest#permits(int) permits}: it offers exclusive and shared
 * locks, not semaphores yet (see {@code docs/etcd.md}). Thrown at call time, before
 * anything is written to etcd.
 */
public class UnsupportedLockModeException extends LockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new exception.
	 * @param message the message, naming the lock, the key and the permits
	 */
	public UnsupportedLockModeException(String message) {
		super(message);
	}

}
