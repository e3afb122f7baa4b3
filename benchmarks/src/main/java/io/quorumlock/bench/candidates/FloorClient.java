package io.quorumlock.bench.candidates;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

/**
 * The raw-Redis floor: {@code SET key token NX PX lease} and a Lua compare-and-delete,
 * over one multiplexed Lettuce connection per node. With N nodes both are sent to every
 * node at once and the caller waits, at most the node timeout, until a quorum (N/2+1)
 * said yes or can no longer say yes; a failed acquisition deletes its token everywhere.
 * Asked to wait, it retries at once until the wait is over. Nothing else: no local
 * queueing, renewal, listeners or validity bookkeeping, and the token is 128 bits from
 * {@link ThreadLocalRandom}.
 */
final class FloorClient implements LockClient {

	static final String RELEASE = """
			if redis.call('get', KEYS[1]) == ARGV[1] then
				return redis.call('del', KEYS[1])
			end
			return 0
			""";

	/** Same per-node deadline as quorumlock's default node timeout. */
	static final long NODE_TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private final ClientResources resources = DefaultClientResources.create();

	private final List<RedisClient> clients = new ArrayList<>();

	private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

	private final List<RedisAsyncCommands<String, String>> async = new ArrayList<>();

	private final RedisCommands<String, String> sync;

	private final String sha;

	private final int quorum;

	private final SetArgs setArgs = SetArgs.Builder.nx().px(LEASE.toMillis());

	FloorClient(List<String> nodes) {
		String loaded = null;
		for (String node : nodes) {
			RedisClient client = RedisClient.create(this.resources, RedisURI.create(node));
			StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
			loaded = connection.sync().scriptLoad(RELEASE);
			this.clients.add(client);
			this.connections.add(connection);
			this.async.add(connection.async());
		}
		this.sha = loaded;
		this.sync = this.connections.get(0).sync();
		this.quorum = nodes.size() / 2 + 1;
	}

	@Override
	public boolean withLock(String key, boolean wait, Runnable body) throws Exception {
		return withLock(key, wait ? WAIT : Duration.ZERO, body);
	}

	/**
	 * Waiting, the floor retries at once (no back-off, no queueing, no notification): the
	 * most hand-overs a polling lock can get from Redis, and no promise of fairness.
	 */
	@Override
	public boolean withLock(String key, Duration wait, Runnable body) throws Exception {
		String token = token();
		long deadline = System.nanoTime() + wait.toNanos();
		while (!acquire(key, token)) {
			if (System.nanoTime() - deadline >= 0) {
				return false;
			}
		}
		try {
			body.run();
		}
		finally {
			release(key, token);
		}
		return true;
	}

	private boolean acquire(String key, String token) throws InterruptedException {
		if (this.async.size() == 1) {
			return "OK".equals(this.sync.set(key, token, this.setArgs));
		}
		Tally tally = new Tally(this.async.size(), this.quorum);
		for (RedisAsyncCommands<String, String> node : this.async) {
			node.set(key, token, this.setArgs)
				.whenComplete((reply, error) -> tally.vote(error == null && "OK".equals(reply)));
		}
		if (tally.await()) {
			return true;
		}
		release(key, token);
		return false;
	}

	private void release(String key, String token) throws InterruptedException {
		String[] keys = { key };
		if (this.async.size() == 1) {
			this.sync.evalsha(this.sha, ScriptOutputType.INTEGER, keys, token);
			return;
		}
		Tally tally = new Tally(this.async.size(), this.quorum);
		for (RedisAsyncCommands<String, String> node : this.async) {
			node.<Long>evalsha(this.sha, ScriptOutputType.INTEGER, keys, token)
				.whenComplete((deleted, error) -> tally.vote(error == null && deleted == 1L));
		}
		tally.await();
	}

	private static String token() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		return Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
	}

	@Override
	public void close() {
		this.connections.forEach(StatefulRedisConnection::close);
		this.clients.forEach(RedisClient::shutdown);
		this.resources.shutdown();
	}

	/**
	 * Votes of one fan-out, decided at a quorum of yes or once a yes quorum is out of
	 * reach.
	 */
	private static final class Tally {

		private final CompletableFuture<Boolean> decided = new CompletableFuture<>();

		private final AtomicInteger yes = new AtomicInteger();

		private final AtomicInteger no = new AtomicInteger();

		private final int nodes;

		private final int quorum;

		Tally(int nodes, int quorum) {
			this.nodes = nodes;
			this.quorum = quorum;
		}

		void vote(boolean granted) {
			if (granted) {
				if (this.yes.incrementAndGet() >= this.quorum) {
					this.decided.complete(true);
				}
			}
			else if (this.no.incrementAndGet() > this.nodes - this.quorum) {
				this.decided.complete(false);
			}
		}

		boolean await() throws InterruptedException {
			try {
				return this.decided.get(NODE_TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
			}
			catch (TimeoutException | ExecutionException ex) {
				return false;
			}
		}

	}

}
