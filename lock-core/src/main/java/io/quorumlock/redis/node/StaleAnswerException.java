package io.quorumlock.redis.node;

/**
 * An answer that came back after its node's connection changed (a drop, a reconnect, a
 * NOSCRIPT): Lettuce may have sent the command again to another server process, so the
 * answer is no vote. One instance: it carries no stack and no detail per answer.
 */
public final class StaleAnswerException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/** The one instance. */
	public static final StaleAnswerException INSTANCE = new StaleAnswerException();

	private StaleAnswerException() {
		super("reconnected while the command was in flight, its answer is not a vote", null, false, false);
	}

}
