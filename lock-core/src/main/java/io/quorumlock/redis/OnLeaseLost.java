package io.quorumlock.redis;

/**
 * What {@link io.quorumlock.Lease#release()} does when the lease was lost before it was
 * released (it expired unrenewed, or renewal missed the quorum).
 */
public enum OnLeaseLost {

	/** Release, then throw {@link io.quorumlock.LeaseLostException}. */
	THROW,

	/** Release and log the loss at WARN. */
	LOG

}
