package io.quorumlock.redis.node;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;

import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * The scan for keys without a TTL (a lock key should never lack one): a bounded
 * {@code SCAN} of one node, each batch's keys checked with {@code PTTL}, every step on
 * the engine's scheduler and never on a Netty thread. On a cluster Lettuce's {@code SCAN}
 * walks every master in turn, its cursor naming the node.
 */
public final class LeakScan {

	private final RedisClusterAsyncCommands<String, String> commands;

	private final Executor executor;

	private final List<String> found = new CopyOnWriteArrayList<>();

	private final int limit;

	private LeakScan(RedisClusterAsyncCommands<String, String> commands, Executor executor, int limit) {
		this.commands = commands;
		this.executor = executor;
		this.limit = limit;
	}

	/**
	 * Keys matching {@code pattern} that have no TTL: at most {@code maxScans} batches,
	 * at most {@code limit} keys.
	 * @param ready completes once the connections the scan needs are open
	 */
	static CompletableFuture<List<String>> keysWithoutTtl(RedisClusterAsyncCommands<String, String> commands,
			CompletionStage<Void> ready, Executor executor, String pattern, int limit, int maxScans) {
		LeakScan scan = new LeakScan(commands, executor, limit);
		return ready.toCompletableFuture()
			.thenComposeAsync(
					(ok) -> scan.scan(ScanCursor.INITIAL, ScanArgs.Builder.matches(pattern).limit(1000), maxScans),
					executor)
			.thenApply((done) -> List.copyOf(scan.found));
	}

	private CompletableFuture<Void> scan(ScanCursor cursor, ScanArgs args, int scansLeft) {
		RedisClusterAsyncCommands<String, String> c = this.commands;
		return c.scan(cursor, args).toCompletableFuture().thenCompose((batch) -> {
			CompletableFuture<?>[] ttls = batch.getKeys()
				.stream()
				.map((key) -> c.pttl(key).toCompletableFuture().thenAccept((ttl) -> {
					if (ttl == -1 && this.found.size() < this.limit) {
						this.found.add(key);
					}
				}))
				.toArray(CompletableFuture[]::new);
			return CompletableFuture.allOf(ttls).thenComposeAsync((ok) -> {
				if (batch.isFinished() || this.found.size() >= this.limit || scansLeft <= 1) {
					return CompletableFuture.completedFuture(null);
				}
				return scan(batch, args, scansLeft - 1);
			}, this.executor);
		});
	}

}
