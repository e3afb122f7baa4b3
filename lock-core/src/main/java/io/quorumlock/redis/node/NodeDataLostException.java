package io.quorumlock.redis.node;

import io.lettuce.core.RedisCommandExecutionException;

/**
 * A granting script's answer that the master's dataset marker is missing: it lost its
 * data since the restart guard last trusted it, granted nothing, and is held back again
 * ({@link ServerState}). An answer, so never sent again.
 */
public final class NodeDataLostException extends RedisCommandExecutionException {

	private static final long serialVersionUID = 1L;

	/** One instance: it carries no stack and no per-answer detail. */
	public static final NodeDataLostException INSTANCE = new NodeDataLostException();

	private NodeDataLostException() {
		super("dataset marker missing: this master lost its data (restarted empty, flushed, or another server "
				+ "behind its address) and is held back by the restart guard");
	}

	@Override
	public synchronized Throwable fillInStackTrace() {
		return this;
	}

}
