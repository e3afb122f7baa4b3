package io.quorumlock.bench.candidates;

import java.util.List;

import io.quorumlock.redis.QuorumLockEngine;

/**
 * quorumlock through {@code @DistributedLock} ({@link AspectContext}), on the same engine
 * as {@link QuorumLockClient}'s, so that "annotated minus programmatic" is the aspect's
 * own cost.
 */
final class AspectClient implements LockClient {

	private final AspectContext context;

	AspectClient(List<String> nodes) {
		QuorumLockEngine engine = QuorumLockClient.engine(nodes);
		try {
			this.context = AspectContext.open(QuorumLockEngine.class, engine);
		}
		catch (RuntimeException ex) {
			engine.close();
			throw ex;
		}
	}

	@Override
	public boolean withLock(String key, boolean wait, Runnable body) {
		return wait ? this.context.service().waiting(key, body) : this.context.service().once(key, body);
	}

	@Override
	public void close() {
		this.context.close();
	}

}
