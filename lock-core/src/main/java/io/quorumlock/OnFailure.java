package io.quorumlock;

/**
 * What an annotated method does when its lock cannot be acquired.
 *
 * @see DistributedLock#onFailure()
 */
public enum OnFailure {

	/**
	 * Throw the {@link LockException} that explains the failure
	 * ({@link LockNotAcquiredException} or {@link QuorumUnavailableException}).
	 */
	THROW,

	/**
	 * Do not run the method and return an empty result: {@code null},
	 * {@code Optional.empty()}, an empty {@code Mono}/{@code Flux} or a future completed
	 * with {@code null}.
	 */
	SKIP

}
