package io.quorumlock.redis;

import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * The pub/sub connection of one node, made when a waiter first needs it (and again after
 * a failed attempt): the release channels subscribed and unsubscribed, each message
 * handed on by channel, and the UNSUBSCRIBEs lost while it was down sent once it is back
 * ({@link LostUnsubscribes}).
 */
final class PubSub implements Channels {

	private final AtomicReference<CompletableFuture<StatefulRedisPubSubConnection<String, String>>> connection = new AtomicReference<>();

	private final LostUnsubscribes unwanted = new LostUnsubscribes();

	private final Supplier<? extends CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>>> connect;

	private final Consumer<String> onMessage;

	private final Executor executor;

	private final BooleanSupplier closed;

	/**
	 * @param connect opens a pub/sub connection to the node
	 * @param onMessage called with the channel of every message
	 * @param executor where the lost UNSUBSCRIBEs are sent on a reconnect
	 * @param closed whether the node is closed
	 */
	PubSub(Supplier<? extends CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>>> connect,
			Consumer<String> onMessage, Executor executor, BooleanSupplier closed) {
		this.connect = connect;
		this.onMessage = onMessage;
		this.executor = executor;
		this.closed = closed;
	}

	@Override
	public CompletableFuture<Void> subscribe(String channel) {
		this.unwanted.subscribed(channel);
		return connection().thenCompose((ps) -> ps.async().subscribe(channel).toCompletableFuture());
	}

	@Override
	public void unsubscribe(String channel) {
		StatefulRedisPubSubConnection<String, String> ps = connected();
		if (ps != null) {
			ps.async()
				.unsubscribe(channel)
				.toCompletableFuture()
				.whenComplete((ok, error) -> this.unwanted.answered(channel, error, this.closed.getAsBoolean()));
		}
	}

	/**
	 * Unsubscribe the channels whose UNSUBSCRIBE was lost, once the pub/sub connection is
	 * open; on every pub/sub reconnect and by the engine's periodic check.
	 */
	void unsubscribeUnwanted() {
		StatefulRedisPubSubConnection<String, String> ps = connected();
		if (this.unwanted.isEmpty() || ps == null || !ps.isOpen()) {
			return;
		}
		this.unwanted.retry(this::unsubscribe);
	}

	/** The connection if it was made, else null. */
	private StatefulRedisPubSubConnection<String, String> connected() {
		CompletableFuture<StatefulRedisPubSubConnection<String, String>> ps = this.connection.get();
		return (ps != null && ps.isDone() && !ps.isCompletedExceptionally()) ? ps.join() : null;
	}

	/** The pub/sub connection, made on first use and again after a failed attempt. */
	private CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection() {
		while (true) {
			CompletableFuture<StatefulRedisPubSubConnection<String, String>> current = this.connection.get();
			if (current != null && !current.isCompletedExceptionally()) {
				return current;
			}
			CompletableFuture<StatefulRedisPubSubConnection<String, String>> created = new CompletableFuture<>();
			if (!this.connection.compareAndSet(current, created)) {
				continue;
			}
			// Only the winner of the compare-and-set connects, so there is one
			// connection.
			this.connect.get().whenComplete((conn, error) -> {
				if (error != null) {
					created.completeExceptionally(error);
					return;
				}
				conn.addListener(new RedisConnectionStateListener() {
					@Override
					public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
						PubSub.this.executor.execute(PubSub.this::unsubscribeUnwanted);
					}
				});
				conn.addListener(new RedisPubSubAdapter<>() {
					@Override
					public void message(String channel, String message) {
						PubSub.this.onMessage.accept(channel);
					}
				});
				if (this.closed.getAsBoolean()) {
					conn.closeAsync();
				}
				created.complete(conn);
			});
			return created;
		}
	}

	/** Close the connection if it was made. */
	void close() {
		StatefulRedisPubSubConnection<String, String> ps = connected();
		if (ps != null) {
			ps.close();
		}
	}

}
