package io.quorumlock.redis.node;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

/**
 * The pub/sub connection of one node, made when a waiter first needs it (and again after
 * a failed attempt): the release channels subscribed and unsubscribed, each message
 * handed on by channel, and the UNSUBSCRIBEs lost while it was down sent once it is back
 * ({@link LostUnsubscribes}).
 */
public final class PubSub implements Channels {

	private final AtomicReference<CompletableFuture<Link.Subscriber>> connection = new AtomicReference<>();

	private final LostUnsubscribes unwanted = new LostUnsubscribes();

	private final Transport transport;

	private final BiConsumer<String, String> onMessage;

	/**
	 * Bumped on every reconnect of the pub/sub connection, by Lettuce's connected event,
	 * which runs on the new channel's I/O thread before that channel reads anything: a
	 * message read after a reconnect is always read after its bump ({@link #link}).
	 */
	private final AtomicLong reconnects = new AtomicLong();

	private final Executor executor;

	private final BooleanSupplier closed;

	/**
	 * @param transport opens the pub/sub connection to the node
	 * @param onMessage called with the channel and the text of every message
	 * @param executor where the lost UNSUBSCRIBEs are sent on a reconnect
	 * @param closed whether the node is closed
	 */
	PubSub(Transport transport, BiConsumer<String, String> onMessage, Executor executor, BooleanSupplier closed) {
		this.transport = transport;
		this.onMessage = onMessage;
		this.executor = executor;
		this.closed = closed;
	}

	@Override
	public CompletableFuture<Void> subscribe(String channel) {
		this.unwanted.subscribed(channel);
		return connection().thenCompose((ps) -> ps.subscribe(channel));
	}

	@Override
	public CompletableFuture<Void> unsubscribe(String channel) {
		Link.Subscriber ps = connected();
		if (ps == null) {
			return CompletableFuture.completedFuture(null);
		}
		return ps.unsubscribe(channel).toCompletableFuture().<Void>handle((ok, error) -> {
			this.unwanted.answered(channel, error, this.closed.getAsBoolean());
			return null;
		});
	}

	/**
	 * Unsubscribe the channels whose UNSUBSCRIBE was lost, once the pub/sub connection is
	 * open; on every pub/sub reconnect and by the engine's periodic check.
	 */
	void unsubscribeUnwanted() {
		Link.Subscriber ps = connected();
		if (this.unwanted.isEmpty() || ps == null || !ps.isOpen()) {
			return;
		}
		this.unwanted.retry(this::unsubscribe);
	}

	/**
	 * Which pub/sub connection is open now: a number that changes whenever the connection
	 * is made again or reconnects, or -1 while none is open. Two equal readings mean that
	 * every message read between them came over one connection to one server process.
	 */
	long link() {
		Link.Subscriber ps = connected();
		return (ps != null && ps.isOpen()) ? this.reconnects.get() : -1;
	}

	/** The connection if it was made, else null. */
	private Link.Subscriber connected() {
		CompletableFuture<Link.Subscriber> ps = this.connection.get();
		return (ps != null && ps.isDone() && !ps.isCompletedExceptionally()) ? ps.join() : null;
	}

	/** The pub/sub connection, made on first use and again after a failed attempt. */
	private CompletableFuture<Link.Subscriber> connection() {
		while (true) {
			CompletableFuture<Link.Subscriber> current = this.connection.get();
			if (current != null && !current.isCompletedExceptionally()) {
				return current;
			}
			CompletableFuture<Link.Subscriber> created = new CompletableFuture<>();
			if (!this.connection.compareAndSet(current, created)) {
				continue;
			}
			// Only the winner of the compare-and-set connects, so there is one
			// connection.
			this.reconnects.incrementAndGet();
			this.transport.connectPubSub(this.onMessage, () -> {
				this.reconnects.incrementAndGet();
				this.executor.execute(this::unsubscribeUnwanted);
			}).whenComplete((conn, error) -> {
				if (error != null) {
					created.completeExceptionally(error);
					return;
				}
				if (this.closed.getAsBoolean()) {
					conn.close();
				}
				created.complete(conn);
			});
			return created;
		}
	}

	/** Close the connection if it was made. */
	void close() {
		Link.Subscriber ps = connected();
		if (ps != null) {
			ps.close();
		}
	}

}
