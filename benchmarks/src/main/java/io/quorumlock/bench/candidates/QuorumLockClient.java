package io.quorumlock.bench.candidates;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * quorumlock's programmatic API with its defaults (renewal on, 50 ms node timeout), the
 * request built on every call as an application would. The restart guard is off: the
 * servers were just started.
 */
final class QuorumLockClient implements LockClient {

	private final QuorumLockEngine engine;

	private final boolean renew;

	QuorumLockClient(List<String> nodes, boolean renew) {
		this.engine = engine(nodes);
		this.renew = renew;
	}

	static QuorumLockEngine engine(List<String> nodes) {
		return QuorumLockEngine.builder().nodes(nodes).rejoinDelay(Duration.ZERO).build();
	}

	@Override
	public boolean withLock(String key, boolean wait, Runnable body) {
		return withLock(key, wait ? WAIT : null, body);
	}

	@Override
	public boolean withLock(String key, Duration wait, Runnable body) {
		LockRequest request = LockRequest.of(key).lease(LEASE);
		if (!this.renew) {
			request = request.renew(false);
		}
		Optional<Lease> lease = this.engine.tryAcquire((wait != null) ? request.waitAtMost(wait) : request);
		if (lease.isEmpty()) {
			return false;
		}
		try {
			body.run();
		}
		finally {
			lease.get().release();
		}
		return true;
	}

	@Override
	public void close() {
		this.engine.close();
	}

}
