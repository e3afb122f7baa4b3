package io.quorumlock.redis.node;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link Link} over one Lettuce connection (one server's, or a cluster's, which routes
 * each command by its first key's slot). Lettuce's own futures are handed back as they
 * are: no stage is added on the way.
 */
public class LettuceLink implements Link {

	private final StatefulConnection<String, String> connection;

	private final RedisClusterAsyncCommands<String, String> commands;

	/** Where the leak scan's steps run, off the I/O threads. */
	private final Executor executor;

	/**
	 * The arguments of the last {@code SET NX PX}, reused while the lease is the same.
	 */
	private volatile LeaseArgs lastSetArgs;

	LettuceLink(StatefulConnection<String, String> connection, RedisClusterAsyncCommands<String, String> commands,
			Executor executor) {
		this.connection = connection;
		this.commands = commands;
		this.executor = executor;
	}

	@Override
	public CompletionStage<String> setIfAbsent(String key, String value, long pxMillis) {
		LeaseArgs last = this.lastSetArgs;
		LeaseArgs args = LeaseArgs.of(last, pxMillis);
		if (args != last) {
			this.lastSetArgs = args;
		}
		return this.commands.set(key, value, args.args());
	}

	@Override
	public CompletionStage<Long> evalsha(String sha1, String[] keys, String... args) {
		return this.commands.evalsha(sha1, ScriptOutputType.INTEGER, keys, args);
	}

	@Override
	public CompletionStage<List<Object>> evalshaList(String sha1, String[] keys, String... args) {
		return this.commands.evalsha(sha1, ScriptOutputType.MULTI, keys, args);
	}

	@Override
	public CompletionStage<String> scriptLoad(String script) {
		return this.commands.scriptLoad(script);
	}

	@Override
	public CompletionStage<String> info(String section) {
		return this.commands.info(section);
	}

	@Override
	public CompletionStage<String> configGet(String parameter) {
		return this.commands.configGet(parameter).thenApply((values) -> values.get(parameter));
	}

	@Override
	public CompletionStage<Long> waitForReplicas(int replicas, long timeoutMillis) {
		return this.commands.waitForReplication(replicas, timeoutMillis);
	}

	@Override
	public CompletionStage<List<String>> keysWithoutTtl(String pattern, int limit, int maxScans) {
		return LeakScan.keysWithoutTtl(this.commands, scanReady(), this.executor, pattern, limit, maxScans);
	}

	/** Completes once the connections the leak scan uses are open. */
	CompletionStage<Void> scanReady() {
		return CompletableFuture.completedFuture(null);
	}

	@Override
	public boolean isOpen() {
		return this.connection.isOpen();
	}

	@Override
	public void close() {
		this.connection.closeAsync();
	}

	public StatefulConnection<String, String> connection() {
		return this.connection;
	}

}
