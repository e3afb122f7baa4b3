package io.quorumlock.redis.node;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.lettuce.core.RedisConnectionException;

/**
 * Connects a node in the background: an attempt that fails is reported and tried again
 * after a back-off that doubles from 100 ms up to 5 s, until one succeeds or the node is
 * closed. Keeps Redis's own text for the last failed attempt, which commands sent while
 * not connected quote.
 */
public final class Reconnector {

	static final Duration FIRST_RETRY = Duration.ofMillis(100);

	static final Duration MAX_RETRY = Duration.ofSeconds(5);

	/**
	 * Lettuce's text when the server closed the channel before the client's handshake
	 * began (as a server may right after refusing a password): it says nothing about the
	 * server, so the text of the attempt before it is kept.
	 */
	static final String LETTUCE_HANDSHAKE_RACE = "RedisHandshakeHandler not registered";

	private final BiConsumer<Runnable, Duration> later;

	private final Consumer<Throwable> onError;

	private final BooleanSupplier closed;

	/** Redis's own text for the last failed connection attempt, else null. */
	private volatile String failure;

	/**
	 * @param later runs a task after a delay
	 * @param onError told every failed attempt
	 * @param closed whether the node is closed
	 */
	Reconnector(BiConsumer<Runnable, Duration> later, Consumer<Throwable> onError, BooleanSupplier closed) {
		this.later = later;
		this.onError = onError;
		this.closed = closed;
	}

	/**
	 * Run {@code attempt} until it succeeds or the node is closed.
	 * @return the first attempt, completing normally whether it connected or not
	 */
	CompletableFuture<Void> connect(Supplier<? extends CompletableFuture<Void>> attempt) {
		return connect(attempt, FIRST_RETRY);
	}

	private CompletableFuture<Void> connect(Supplier<? extends CompletableFuture<Void>> attempt, Duration retryIn) {
		if (this.closed.getAsBoolean()) {
			return CompletableFuture.completedFuture(null);
		}
		return attempt.get().exceptionally((error) -> {
			failed(error);
			Duration next = retryIn.multipliedBy(2);
			this.later.accept(() -> connect(attempt, (next.compareTo(MAX_RETRY) > 0) ? MAX_RETRY : next), retryIn);
			return null;
		});
	}

	/**
	 * An attempt failed, this one's or Lettuce's own after a drop: keep its text for
	 * commands and status, and report it.
	 */
	void failed(Throwable error) {
		String reason = Replies.reason(error);
		if (this.failure == null || !reason.contains(LETTUCE_HANDSHAKE_RACE)) {
			this.failure = reason;
		}
		this.onError.accept(Replies.unwrap(error));
	}

	/** An attempt connected: no failure to quote any more. */
	void connected() {
		this.failure = null;
	}

	/** Redis's or the network's text for the last failed attempt, else null. */
	String lastFailure() {
		return this.failure;
	}

	/** The failure of a command sent while not connected, quoting the last attempt. */
	<T> CompletableFuture<T> notConnected() {
		String last = this.failure;
		return CompletableFuture.failedFuture(
				new RedisConnectionException("not connected" + ((last != null) ? ", last attempt: " + last : "")));
	}

}
