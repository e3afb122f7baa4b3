package io.quorumlock.redis;

/**
 * What a {@link Round} needs of a node besides the command it sends: a name for messages,
 * and the connection epoch that tells an answer on the connection a command was sent on
 * from one Lettuce re-sent after a reconnect.
 */
interface Node {

	/** Host and port, never credentials. */
	String address();

	/**
	 * The connection epoch now: capture it before sending a command, and count the answer
	 * only if {@link #sameConnection(long)} still holds when it comes back.
	 */
	long epoch();

	/** Whether the connection has neither dropped nor reconnected since {@code epoch}. */
	boolean sameConnection(long epoch);

	/** Record the round trip of an answer, for status. */
	void recordLatency(long nanos);

}
