package io.quorumlock.redis;

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
		CompletableFuture<Long> sha = c.<Long>evalsha(script.sha1(), ScriptOutputType.INTEGER, keys, args)
			.toCompletableFuture();
		return sha.exceptionallyCompose((error) -> (Futures.unwrap(error) instanceof RedisNoScriptException)
				? c.<Long>eval(script.text(), ScriptOutputType.INTEGER, keys, args).toCompletableFuture()
				: CompletableFuture.failedFuture(error));
	}

}
