package io.quorumlock.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Wake-ups for waiters: a release publishes on the key's channel, and the one local
 * waiter polling that key (the owner of its {@link LocalGates gate}) retries at once.
 * Subscriptions exist only while someone waits, so idle keys cost nothing.
 */
final class ReleaseSignals {

	private final List<RedisNode> nodes;

	/**
	 * Channel to the wake-up of its current wait; an entry exists only while someone
	 * waits.
	 */
	private final ConcurrentHashMap<String, CompletableFuture<Void>> waiting = new ConcurrentHashMap<>();

	ReleaseSignals(List<RedisNode> nodes) {
		this.nodes = nodes;
	}

	/** Subscribe on every node; completes when at least one subscription is confirmed. */
	CompletableFuture<Void> subscribe(String channel) {
		CompletableFuture<Void> any = new CompletableFuture<>();
		AtomicInteger failed = new AtomicInteger();
		for (RedisNode node : this.nodes) {
			node.subscribe(channel).whenComplete((ok, error) -> {
				if (error == null) {
					any.complete(null);
				}
				else {
					if (failed.incrementAndGet() == this.nodes.size()) {
						any.completeExceptionally(error);
					}
				}
			});
		}
		return any;
	}

	/**
	 * Start a new wait on {@code channel}: the returned future completes on the next
	 * message. Call it before each attempt, so that a release during the attempt is not
	 * missed.
	 */
	CompletableFuture<Void> expect(String channel) {
		CompletableFuture<Void> wake = new CompletableFuture<>();
		this.waiting.put(channel, wake);
		return wake;
	}

	void unsubscribe(String channel) {
		this.waiting.remove(channel);
		for (RedisNode node : this.nodes) {
			node.unsubscribe(channel);
		}
	}

	/** Channels with a wait registered now; zero when nobody waits. */
	int waiting() {
		return this.waiting.size();
	}

	/** Called by the nodes' pub/sub listeners. */
	void onMessage(String channel) {
		CompletableFuture<Void> wake = this.waiting.get(channel);
		if (wake != null) {
			wake.complete(null);
		}
	}

}
