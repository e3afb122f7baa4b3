package io.quorumlock.etcd;

import io.quorumlock.LockException;

/**
 * The etcd registry refused a {@link io.quorumlock.LockMode#SHARED shared} request or one
 * of several {@link io.quorumlock.LockRequest#permits(int) permits}: it offers exclusive
 * locks only (see {@code docs/etcd.md}, "Shared locks and permits"). Thrown at call time,
 * before anything is written to etcd.
 */
public class UnsupportedLockModeException extends LockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new exception.
	 * @param message the message, naming the lock, the key and the mode
	 */
	public UnsupportedLockModeException(String message) {
		super(message);
	}

}
