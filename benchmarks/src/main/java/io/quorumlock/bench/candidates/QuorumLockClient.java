package io.quorumlock.bench.candidates;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * quorumlock's programmatic API with its defaults (renewal on, 50 ms node timeout, the
 * restart guard on in quorum mode), the request built on every call as an application
 * would: exclusive, shared or a permit. The servers were just started, so they are
 * declared brand new by their run_ids and vote at once, as in a new deployment.
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
		return QuorumLockEngine.builder().nodes(nodes).freshMasterRunIds(runIds(nodes)).build();
	}

	/** Each server's {@code run_id}, read once. */
	private static List<String> runIds(List<String> nodes) {
		return nodes.stream().map((node) -> {
			RedisClient client = RedisClient.create(node);
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				String info = connection.sync().info("server");
				return info.lines()
					.filter((line) -> line.startsWith("run_id:"))
					.map((line) -> line.substring("run_id:".length()).trim())
					.findFirst()
					.orElseThrow();
			}
			finally {
				client.shutdown();
			}
		}).toList();
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
