package io.quorumlock.redis.node;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Connecting in the background: a failed attempt is reported and retried after a back-off
 * that doubles up to 5 s, and its text is quoted by commands sent meanwhile.
 */
class ReconnectorTests {

	private final List<Duration> delays = new ArrayList<>();

	private final Queue<Runnable> scheduled = new ArrayDeque<>();

	private final List<Throwable> errors = new ArrayList<>();

	private boolean closed;

	private final Reconnector reconnector = new Reconnector((task, delay) -> {
		this.delays.add(delay);
		this.scheduled.add(task);
	}, this.errors::add, () -> this.closed);

	@Test
	void failedAttemptsAreRetriedWithADoublingBackOffUpToFiveSeconds() {
		AtomicInteger attempts = new AtomicInteger();
		CompletableFuture<Void> first = this.reconnector.connect(() -> {
			attempts.incrementAndGet();
			return CompletableFuture.failedFuture(new RedisConnectionException("Connection refused"));
		});
		assertThat(first).as("the first attempt completes normally").isCompleted();
		for (int i = 0; i < 8; i++) {
			this.scheduled.poll().run();
		}
		assertThat(attempts).hasValue(9);
		assertThat(this.errors).hasSize(9);
		assertThat(this.delays).extracting(Duration::toMillis)
			.containsExactly(100L, 200L, 400L, 800L, 1600L, 3200L, 5000L, 5000L, 5000L);
		assertThat(this.reconnector.lastFailure()).isEqualTo("Connection refused");
		assertThatThrownBy(() -> this.reconnector.notConnected().join())
			.hasMessageContaining("not connected, last attempt: Connection refused");
	}

	@Test
	void successEndsTheRetriesAndForgetsTheFailure() {
		AtomicInteger attempts = new AtomicInteger();
		this.reconnector.connect(() -> {
			if (attempts.incrementAndGet() == 1) {
				return CompletableFuture.failedFuture(new RedisConnectionException("NOAUTH"));
			}
			this.reconnector.connected();
			return CompletableFuture.completedFuture(null);
		});
		this.scheduled.poll().run();
		assertThat(this.scheduled).isEmpty();
		assertThat(this.reconnector.lastFailure()).isNull();
		assertThatThrownBy(() -> this.reconnector.notConnected().join()).hasMessageEndingWith("not connected");
	}

	@Test
	void lettucesHandshakeRaceDoesNotHideWhatTheServerSaid() {
		AtomicInteger attempts = new AtomicInteger();
		this.reconnector.connect(() -> CompletableFuture.failedFuture(new RedisConnectionException(
				(attempts.incrementAndGet() == 1) ? "WRONGPASS invalid username-password pair"
						: "Unable to connect: " + Reconnector.LETTUCE_HANDSHAKE_RACE)));
		this.scheduled.poll().run();
		assertThat(attempts).hasValue(2);
		assertThat(this.reconnector.lastFailure()).contains("WRONGPASS");
	}

	@Test
	void closedNodeStopsRetrying() {
		AtomicInteger attempts = new AtomicInteger();
		this.reconnector.connect(() -> {
			attempts.incrementAndGet();
			return CompletableFuture.failedFuture(new RedisConnectionException("Connection refused"));
		});
		this.closed = true;
		this.scheduled.poll().run();
		assertThat(attempts).hasValue(1);
		assertThat(this.scheduled).isEmpty();
	}

}
