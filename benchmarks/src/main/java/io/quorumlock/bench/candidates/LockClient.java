package io.quorumlock.bench.candidates;

import java.time.Duration;

/**
 * One lock implementation under test: lock a key, run a body, unlock. Each benchmark fork
 * opens one candidate (or one per thread, standing for separate processes) on the servers
 * named by {@code bench.nodes}.
 */
public interface LockClient extends AutoCloseable {

	/** Lease (time to live) of every grant, for every candidate. */
	Duration LEASE = Duration.ofSeconds(30);

	/** How long a waiting call may wait, for every candidate. */
	Duration WAIT = Duration.ofSeconds(10);

	/**
	 * Lock {@code key}, run {@code body} while holding it, then unlock.
	 * @param key the key
	 * @param wait whether to wait up to {@link #WAIT} (else try once)
	 * @param body the critical section
	 * @return whether the lock was acquired (and so the body run)
	 * @throws Exception from the client
	 */
	boolean withLock(String key, boolean wait, Runnable body) throws Exception;

	/**
	 * Lock {@code key}, waiting up to {@code wait}, run {@code body}, then unlock (for
	 * scenarios whose callers wait longer than {@link #WAIT}).
	 * @param key the key
	 * @param wait how long to wait at most
	 * @param body the critical section
	 * @return whether the lock was acquired (and so the body run)
	 * @throws Exception from the client
	 */
	default boolean withLock(String key, Duration wait, Runnable body) throws Exception {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " does not wait");
	}

	@Override
	void close();

}
