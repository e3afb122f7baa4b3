package io.quorumlock.autoconfigure;

/**
 * The node timeout for tests whose locks must be granted, not refused: their grants are
 * what they assert on, and the default of 50 ms is a real answer's bound, not a loaded
 * build machine's (an answer 62 ms late refused a grant a test then waited for). Tests of
 * the default itself, or of refusals it causes, set their own.
 */
public final class BoundedWait {

	/** A node timeout no answer of a loaded build machine's loopback Redis outlasts. */
	public static final String NODE_TIMEOUT = "quorumlock.node-timeout=500ms";

	private BoundedWait() {
	}

}
