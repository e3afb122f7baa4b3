package io.quorumlock.redis.node;

/**
 * A node that the restart guard keeps out of quorums: it restarted less than
 * {@code rejoin-delay} ago, or its uptime is not known yet. No stack trace: it is a
 * verdict, not a failure.
 */
public final class NodeHeldBackException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public NodeHeldBackException(String message) {
		super(message, null, false, false);
	}

}
