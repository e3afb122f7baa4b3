package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;

/** The pub/sub side of one node, as {@link ReleaseSignals} uses it. */
interface Channels {

	/** Subscribe to a release channel; completes when the subscription is confirmed. */
	CompletableFuture<Void> subscribe(String channel);

	/** Unsubscribe from a release channel; if the connection is down, once it is back. */
	void unsubscribe(String channel);

}
