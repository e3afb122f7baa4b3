package io.quorumlock.redis.node;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * One open connection to a server, as a {@link Transport} made it: commands go out in the
 * order they are issued and their answers come back as stages, completed on whichever
 * thread reads them. Nothing here blocks.
 */
public interface Link {

	/**
	 * {@code SET key value NX PX pxMillis}.
	 * @return {@code "OK"} if set, null if the key exists
	 */
	CompletionStage<String> setIfAbsent(String key, String value, long pxMillis);

	/** {@code EVALSHA} of a script whose answer is an integer. */
	CompletionStage<Long> evalsha(String sha1, String[] keys, String... args);

	/**
	 * {@code EVALSHA} of a script whose answer is an array: each element a {@code Long},
	 * a {@code String}, a nested {@code List}, or null.
	 */
	CompletionStage<List<Object>> evalshaList(String sha1, String[] keys, String... args);

	/** {@code SCRIPT LOAD}: the script's SHA-1 once the server has it. */
	CompletionStage<String> scriptLoad(String script);

	/** {@code INFO section}: the server's text. */
	CompletionStage<String> info(String section);

	/**
	 * {@code CONFIG GET parameter}: its value, or null if the server has no such
	 * parameter; fails if this user may not read the configuration.
	 */
	CompletionStage<String> configGet(String parameter);

	/**
	 * {@code WAIT replicas timeoutMillis}: how many replicas acknowledged every write of
	 * this connection so far.
	 */
	CompletionStage<Long> waitForReplicas(int replicas, long timeoutMillis);

	/**
	 * The keys matching {@code pattern} that have no TTL: a bounded {@code SCAN} (at most
	 * {@code maxScans} batches) with {@code PTTL} on each key found, at most
	 * {@code limit} keys.
	 */
	CompletionStage<List<String>> keysWithoutTtl(String pattern, int limit, int maxScans);

	/** Whether commands can be sent now. */
	boolean isOpen();

	/** Close the connection; it does not reconnect. */
	void close();

	/** What a connection tells its node. */
	interface Events {

		/** The connection dropped: answers to what is in flight, if any, come later. */
		void disconnected();

		/** The connection is open again, perhaps to another server process. */
		void reconnected();

		/**
		 * An attempt to reconnect the dropped connection failed (a refused port, a
		 * password the server no longer takes, a TLS handshake): the connection keeps
		 * trying by itself.
		 * @param cause the attempt's failure, in the server's or the transport's words
		 */
		default void reconnectFailed(Throwable cause) {
		}

	}

	/** An open pub/sub connection. */
	interface Subscriber {

		/** {@code SUBSCRIBE channel}: completes once the server confirmed it. */
		CompletionStage<Void> subscribe(String channel);

		/** {@code UNSUBSCRIBE channel}: completes once the server confirmed it. */
		CompletionStage<Void> unsubscribe(String channel);

		/** Whether commands can be sent now. */
		boolean isOpen();

		/** Close the connection; it does not reconnect. */
		void close();

	}

}
