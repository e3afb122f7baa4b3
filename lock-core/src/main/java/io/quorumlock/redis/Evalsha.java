package io.quorumlock.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * A lock script run by its SHA-1 ({@code EVALSHA}), falling back to its text
 * ({@code EVAL}) on {@code NOSCRIPT}: a restarted or flushed server has forgotten the
 * scripts loaded on connect.
 */
final class Evalsha {

	private Evalsha() {
	}

	static CompletableFuture<Long> eval(RedisClusterAsyncCommands<String, String> c, Script script, String[] keys,
			String... args) {
		return eval(c, ScriptOutputType.INTEGER, script, keys, args);
	}

	/** A script that answers an array ({@link Script#EXTEND_MANY}). */
	static CompletableFuture<List<Object>> evalMulti(RedisClusterAsyncCommands<String, String> c, Script script,
			String[] keys, String... args) {
		return eval(c, ScriptOutputType.MULTI, script, keys, args);
	}

	private static <T> CompletableFuture<T> eval(RedisClusterAsyncCommands<String, String> c, ScriptOutputType type,
			Script script, String[] keys, String... args) {
		CompletableFuture<T> sha = c.<T>evalsha(script.sha1(), type, keys, args).toCompletableFuture();
		return sha.exceptionallyCompose((error) -> (Futures.unwrap(error) instanceof RedisNoScriptException)
				? c.<T>eval(script.text(), type, keys, args).toCompletableFuture()
				: CompletableFuture.failedFuture(error));
	}

}
