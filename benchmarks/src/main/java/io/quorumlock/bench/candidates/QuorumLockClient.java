package io.quorumlock.bench.candidates;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * quorumlock's programmatic API with its defaults (renewal on, 50 ms node timeout), the
 * request built on every call as an application would: exclusive, shared or a permit. The
 * restart guard is off: the servers were just started.
 */
final class QuorumLockClient implements LockClient {

	private final QuorumLockEngine engine;

	private final boolean renew;

	/** The mode of each request: exclusive as built, shared, or a permit. */
	private final UnaryOperator<LockRequest> mode;

	QuorumLockClient(List<String> nodes, boolean renew) {
		this(nodes, renew, UnaryOperator.identity());
	}

	QuorumLockClient(List<String> nodes, UnaryOperator<LockRequest> mode) {
		this(nodes, true, mode);
	}

	private QuorumLockClient(List<String> nodes, boolean renew, UnaryOperator<LockRequest> mode) {
		this.engine = engine(nodes);
		this.renew = renew;
		this.mode = mode;
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
		LockRequest request = this.mode.apply(LockRequest.of(key).lease(LEASE));
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
