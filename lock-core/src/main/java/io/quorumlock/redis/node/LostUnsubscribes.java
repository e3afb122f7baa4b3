package io.quorumlock.redis.node;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Channels whose UNSUBSCRIBE failed without a reply (the pub/sub connection was down):
 * Lettuce subscribes them again on reconnect, so they are unsubscribed once it is back,
 * unless a new wait subscribed them meanwhile.
 */
public final class LostUnsubscribes {

	private final Set<String> channels = ConcurrentHashMap.newKeySet();

	/** A wait subscribes {@code channel}: it is wanted again. */
	void subscribed(String channel) {
		this.channels.remove(channel);
	}

	/**
	 * An UNSUBSCRIBE of {@code channel} came back: kept for later if it failed without a
	 * reply while the node is open.
	 */
	void answered(String channel, Throwable error, boolean closed) {
		if (Replies.withoutReply(error) && !closed) {
			this.channels.add(channel);
		}
	}

	boolean isEmpty() {
		return this.channels.isEmpty();
	}

	/** Unsubscribe, with {@code unsubscribe}, every channel still unwanted. */
	void retry(Consumer<String> unsubscribe) {
		for (String channel : List.copyOf(this.channels)) {
			if (this.channels.remove(channel)) {
				unsubscribe.accept(channel);
			}
		}
	}

}
