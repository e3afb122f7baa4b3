package io.quorumlock.redis.node;

import java.util.concurrent.CompletableFuture;

/** The pub/sub side of one node, as the engine's release signals uses it. */
public interface Channels {

	/** Subscribe to a release channel; completes when the subscription is confirmed. */
	CompletableFuture<Void> subscribe(String channel);

	/**
	 * Unsubscribe from a release channel; if the connection is down, once it is back.
	 * Completes when the node answered, or failed to: then no SUBSCRIBE sent after it can
	 * be undone by it.
	 */
	CompletableFuture<Void> unsubscribe(String channel);

}
