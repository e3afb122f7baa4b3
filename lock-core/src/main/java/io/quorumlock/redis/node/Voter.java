package io.quorumlock.redis.node;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;

/**
 * What a {@code Round} needs of a node besides the command it sends: a name for messages,
 * the connection epoch that tells an answer on the connection a command was sent on from
 * one Lettuce re-sent after a reconnect, and where to count its answers for status.
 */
public interface Voter {

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

	/**
	 * Count one answer of a round, for status and meters; {@code failure} is null for a
	 * vote. Called once per node and round on the thread that completed the answer (an
	 * I/O thread, or the deadline's timer): no allocation, no lock.
	 */
	default void answered(Answer answer, Throwable failure) {
	}

	/**
	 * How a node answered one command of a round: the {@code outcome} of the
	 * {@code distributed.lock.node.answers} meter.
	 */
	enum Answer {

		/** The command took effect. */
		YES,
		/** Answered but refused: the key is held by another token. */
		HELD,
		/** No answer within the node timeout. */
		TIMEOUT,
		/** Not sent, or lost, because the node was not connected. */
		NOT_CONNECTED,
		/** Not counted: the node does not vote (restart guard, eviction, duplicate). */
		HELD_BACK,
		/** An error reply, or any other failure. */
		ERROR;

		/** The outcome of a failed answer. */
		public static Answer of(Throwable failure) {
			if (failure instanceof NodeHeldBackException || failure instanceof NodeDataLostException) {
				return HELD_BACK;
			}
			if (failure instanceof StaleAnswerException) {
				return NOT_CONNECTED;
			}
			if (failure instanceof TimeoutException || failure instanceof RedisCommandTimeoutException) {
				return TIMEOUT;
			}
			if (failure instanceof RedisCommandExecutionException) {
				return ERROR; // the server's own error reply: NOAUTH, OOM, NOSCRIPT...
			}
			// rejected while disconnected, lost with its connection, refused, a reconnect
			// under the command
			return (failure instanceof RedisException || failure instanceof IOException) ? NOT_CONNECTED : ERROR;
		}

	}

}
