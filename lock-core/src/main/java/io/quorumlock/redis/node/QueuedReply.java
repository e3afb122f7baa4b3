package io.quorumlock.redis.node;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A node's reply to a command that is queued to be sent later with others
 * ({@link RenewalBatch}): a {@code Round}'s deadline is armed only once every such
 * command was handed to its connection, so that the wait in the queue does not spend the
 * node timeout. The deadline bounds the wait for answers, not the lease: validity is
 * measured by the caller from before the round began, so a later deadline can only leave
 * it less.
 */
public interface QueuedReply {

	/** Completes once the command was handed to the node's connection. */
	CompletionStage<?> sent();

	/**
	 * Add {@code reply} to {@code queued} if it is a queued one.
	 * @return the list, created on the first queued reply; null while there is none
	 */
	static List<CompletableFuture<?>> collect(List<CompletableFuture<?>> queued, CompletionStage<?> reply, int nodes) {
		if (!(reply instanceof QueuedReply q)) {
			return queued;
		}
		List<CompletableFuture<?>> list = (queued != null) ? queued : new ArrayList<>(nodes);
		list.add(q.sent().toCompletableFuture());
		return list;
	}

	/** Run {@code arm} once every queued reply was sent, at once if there is none. */
	static void whenSent(List<CompletableFuture<?>> queued, Runnable arm) {
		if (queued == null) {
			arm.run();
		}
		else {
			CompletableFuture.allOf(queued.toArray(new CompletableFuture<?>[0]))
				.whenComplete((sent, error) -> arm.run());
		}
	}

}
