package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import io.quorumlock.redis.node.Channels;

/** One node's pub/sub, faked: records the calls, confirms as the test says. */
final class FakeChannels implements Channels {

	final List<String> calls = new ArrayList<>();

	/**
	 * The confirmation of the last SUBSCRIBE; completed at once unless
	 * {@link #confirmLater}.
	 */
	CompletableFuture<Void> lastSubscribe;

	boolean confirmLater;

	@Override
	public CompletableFuture<Void> subscribe(String channel) {
		this.calls.add("subscribe " + channel);
		this.lastSubscribe = this.confirmLater ? new CompletableFuture<>() : CompletableFuture.completedFuture(null);
		return this.lastSubscribe;
	}

	/**
	 * The answer to the last UNSUBSCRIBE; completed at once unless {@link #confirmLater}.
	 */
	CompletableFuture<Void> lastUnsubscribe;

	@Override
	public CompletableFuture<Void> unsubscribe(String channel) {
		this.calls.add("unsubscribe " + channel);
		this.lastUnsubscribe = this.confirmLater ? new CompletableFuture<>() : CompletableFuture.completedFuture(null);
		return this.lastUnsubscribe;
	}

}
