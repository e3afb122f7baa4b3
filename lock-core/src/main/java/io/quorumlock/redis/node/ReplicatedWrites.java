package io.quorumlock.redis.node;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;

import io.lettuce.core.RedisConnectionException;

/**
 * Writes that replicas must acknowledge ({@code sync-replicas}). {@code WAIT} blocks the
 * connection it is sent on until the replicas acknowledge or it times out, and it counts
 * the writes of that connection only: so each write it confirms goes on a connection of
 * its own ({@link RedisNode}'s second command connection), immediately followed by its
 * {@code WAIT}, and nothing else does (releases, undos and reads stay on the command
 * connection, never queued behind a lagging replica). That connection is under the same
 * epochs as the command connection: its drops and reconnects start new ones too.
 */
public final class ReplicatedWrites {

	private ReplicatedWrites() {
	}

	/**
	 * The write, then (if {@code wrote} says it changed something) {@code WAIT} on the
	 * same connection: sent from the I/O thread that completes the write, without
	 * blocking it. Completes with the write's reply once {@code replicas} replicas
	 * acknowledged it, else exceptionally.
	 */
	static <T> CompletableFuture<T> then(Link link, CompletionStage<T> write, Predicate<? super T> wrote, int replicas,
			long timeoutMillis) {
		return write.toCompletableFuture()
			.thenCompose(
					(reply) -> wrote.test(reply) ? awaitReplicas(link, replicas, timeoutMillis).thenApply((ok) -> reply)
							: CompletableFuture.completedFuture(reply));
	}

	/**
	 * {@code WAIT replicas timeout}: completes normally once at least {@code replicas}
	 * replicas acknowledged every write of this connection so far, else exceptionally.
	 */
	private static CompletableFuture<Void> awaitReplicas(Link link, int replicas, long timeoutMillis) {
		return link.waitForReplicas(replicas, timeoutMillis).toCompletableFuture().thenAccept((acked) -> {
			if (acked < replicas) {
				throw new CompletionException(new RedisConnectionException("WAIT: " + acked + " of " + replicas
						+ " replicas acknowledged within " + timeoutMillis + " ms (sync-replicas)"));
			}
		});
	}

}
