package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;

/**
 * The connection of a standalone node for writes that replicas must acknowledge
 * ({@code sync-replicas}). {@code WAIT} blocks the connection it is sent on until the
 * replicas acknowledge or it times out, and it counts the writes of that connection only:
 * so each write it confirms is sent here, immediately followed by its {@code WAIT}, and
 * nothing else is (releases, undos and reads stay on the command connection, never queued
 * behind a lagging replica).
 */
final class ReplicatedWrites {

	private final RedisClient client;

	private final RedisURI uri;

	private final BooleanSupplier closed;

	/** Null until connected. */
	private volatile RedisAsyncCommands<String, String> commands;

	private volatile StatefulRedisConnection<String, String> connection;

	ReplicatedWrites(RedisClient client, RedisURI uri, BooleanSupplier closed) {
		this.client = client;
		this.uri = uri;
		this.closed = closed;
	}

	/** Open the connection once; Lettuce reconnects it by itself afterwards. */
	CompletableFuture<Void> connect() {
		if (this.commands != null) {
			return CompletableFuture.completedFuture(null);
		}
		return this.client.connectAsync(StringCodec.UTF8, this.uri).toCompletableFuture().thenAccept((conn) -> {
			if (this.closed.getAsBoolean()) {
				conn.closeAsync();
				return;
			}
			this.connection = conn;
			this.commands = conn.async();
		});
	}

	/** Whether the connection was opened. */
	boolean isOpened() {
		return this.commands != null;
	}

	/**
	 * {@code SET key token NX PX lease} followed by {@code WAIT} if it set the key:
	 * completes with the reply once {@code replicas} replicas acknowledged it, else
	 * exceptionally. Only once {@link #isOpened() opened}.
	 */
	CompletableFuture<String> setIfAbsent(String key, String token, SetArgs args, int replicas, long timeoutMillis) {
		RedisAsyncCommands<String, String> c = this.commands;
		return thenAwaitReplicas(c.set(key, token, args), RedisNode::isSet, replicas, timeoutMillis);
	}

	/**
	 * A script followed by {@code WAIT} if {@code wrote} says it changed something:
	 * completes with the script's answer once {@code replicas} replicas acknowledged it,
	 * else exceptionally. Only once {@link #isOpened() opened}.
	 */
	CompletableFuture<Long> eval(Script script, String[] keys, Predicate<Long> wrote, int replicas, long timeoutMillis,
			String... args) {
		return thenAwaitReplicas(Evalsha.eval(this.commands, script, keys, args), wrote, replicas, timeoutMillis);
	}

	/**
	 * The write, then (if it wrote) {@code WAIT} on the same connection: sent from the
	 * I/O thread that completes the write, without blocking it.
	 */
	private <T> CompletableFuture<T> thenAwaitReplicas(CompletionStage<T> write, Predicate<? super T> wrote,
			int replicas, long timeoutMillis) {
		return write.toCompletableFuture()
			.thenCompose((reply) -> wrote.test(reply) ? awaitReplicas(replicas, timeoutMillis).thenApply((ok) -> reply)
					: CompletableFuture.completedFuture(reply));
	}

	/**
	 * {@code WAIT replicas timeout}: completes normally once at least {@code replicas}
	 * replicas acknowledged every write of this connection so far, else exceptionally.
	 */
	private CompletableFuture<Void> awaitReplicas(int replicas, long timeoutMillis) {
		return this.commands.waitForReplication(replicas, timeoutMillis).toCompletableFuture().thenAccept((acked) -> {
			if (acked < replicas) {
				throw new CompletionException(new RedisConnectionException("WAIT: " + acked + " of " + replicas
						+ " replicas acknowledged within " + timeoutMillis + " ms (sync-replicas)"));
			}
		});
	}

	void close() {
		StatefulRedisConnection<String, String> r = this.connection;
		if (r != null) {
			r.close();
		}
	}

}
