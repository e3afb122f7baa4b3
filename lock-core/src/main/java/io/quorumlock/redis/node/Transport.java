package io.quorumlock.redis.node;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * How a {@link RedisNode} reaches its server: the one place where the node's logic meets
 * a client library. Everything above it (connection epochs, the scripts loaded per epoch,
 * the restart guard, redos, renewal batches, pub/sub bookkeeping) is the same whatever
 * carries the commands: Lettuce in production ({@code LettuceTransport} for one server,
 * {@code ClusterTransport} for a Redis Cluster in single mode), simulated servers and
 * connections in the deterministic simulation.
 * <p>
 * A transport behaves as Lettuce does with the engine's client options: a connection
 * reconnects by itself after a drop and tells its {@link Link.Events} of both; a command
 * issued while disconnected fails at once with {@code RedisConnectionException}; a
 * command in flight when the connection drops may be sent again after the reconnect
 * (perhaps to another server process); a command without an answer within the command
 * timeout fails with {@code RedisCommandTimeoutException} and may still run later; an
 * error reply fails with {@code RedisCommandExecutionException} (or a subclass, such as
 * {@code RedisNoScriptException}). Completions may arrive on any thread.
 */
public interface Transport extends AutoCloseable {

	/** Host and port, never credentials. */
	String address();

	/** The entry as a URI without credentials, for messages. */
	String uriText();

	/**
	 * Open a command connection.
	 * @param events told of every drop and reconnect of this connection
	 * @return the connection once open; failed if the attempt failed (the caller retries)
	 */
	CompletableFuture<Link> connect(Link.Events events);

	/**
	 * Open a pub/sub connection.
	 * @param onMessage called with the channel and the text of every message received
	 * @param onReconnected called after each reconnect of this connection
	 */
	CompletableFuture<Link.Subscriber> connectPubSub(BiConsumer<String, String> onMessage, Runnable onReconnected);

	/**
	 * Whether the node is one server that answers for itself: its {@code INFO}, its
	 * dataset marker and its renewal batches ({@link Script#EXTEND_MANY} over keys of any
	 * slot) mean something; false for a whole Redis Cluster.
	 */
	boolean isOneServer();

	/** Close every connection this transport opened and release its resources. */
	@Override
	void close();

}
