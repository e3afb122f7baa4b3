package io.quorumlock.redis.node;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
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
		return dispatch(CommandType.EVALSHA, new IntegerOutput<>(StringCodec.UTF8), scriptArgs(sha1, keys, args));
	}

	@Override
	public CompletionStage<List<Object>> evalshaList(String sha1, String[] keys, String... args) {
		return dispatch(CommandType.EVALSHA, new NestedMultiOutput<>(StringCodec.UTF8), scriptArgs(sha1, keys, args));
	}

	/**
	 * {@code EVALSHA}'s arguments, as Lettuce's own {@code evalsha} sends them (the same
	 * bytes: UTF-8, the codec of every connection here), but only the first key passed as
	 * a key, for a cluster connection to route the command by its slot, and every other
	 * key and argument as text. Lettuce writes a key or value through the codec into a
	 * temporary pooled buffer, then copies it (the UTF-8 codec cannot size a string
	 * exactly beforehand): one buffer per argument on the I/O thread, 768 for a batch of
	 * 256 renewals, one in 128 of them with a stack trace taken by Netty's leak detector.
	 * Text is written straight into the command's buffer.
	 */
	static CommandArgs<String, String> scriptArgs(String sha1, String[] keys, String[] args) {
		CommandArgs<String, String> out = new CommandArgs<>(StringCodec.UTF8).add(sha1).add(keys.length);
		for (int i = 0; i < keys.length; i++) {
			if (i == 0) {
				out.addKey(keys[i]);
			}
			else {
				out.add(keys[i]);
			}
		}
		for (String arg : args) {
			out.add(arg);
		}
		return out;
	}

	/** Send a command as Lettuce's asynchronous API does, and hand back its future. */
	private <T> CompletionStage<T> dispatch(CommandType type, CommandOutput<String, String, T> output,
			CommandArgs<String, String> args) {
		AsyncCommand<String, String, T> command = new AsyncCommand<>(new Command<>(type, output, args));
		RedisCommand<String, String, T> sent = this.connection.dispatch(command);
		return (sent instanceof AsyncCommand<String, String, T> async) ? async : command;
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
