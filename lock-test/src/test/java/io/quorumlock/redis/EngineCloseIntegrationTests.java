package io.quorumlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Closing an engine ends every acquisition in progress at once, whatever waits on it (a
 * blocked thread, a future, a {@code Lock} view), fails every later one, and releases the
 * leases it holds. Each wait here would otherwise last 30 s or more.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EngineCloseIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private static final Duration LONG_WAIT = Duration.ofSeconds(30);

	private QuorumLockEngine holder;

	private QuorumLockEngine waiter;

	private String key;

	@BeforeEach
	void start() {
		this.holder = engine();
		this.waiter = engine();
		this.key = "k" + UUID.randomUUID();
	}

	@AfterEach
	void stop() {
		this.holder.close();
		this.waiter.close();
	}

	private static QuorumLockEngine engine() {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			.rejoinDelay(Duration.ZERO)
			.nodeTimeout(Duration.ofMillis(500))
			.build();
	}

	@Test
	void aThreadBlockedInAcquireFailsAtOnceWhenTheEngineCloses() throws Exception {
		try (Lease held = this.holder.acquire(LockRequest.of(this.key))) {
			CompletableFuture<Throwable> blocked = CompletableFuture.supplyAsync(() -> {
				try {
					this.waiter.acquire(LockRequest.of(this.key).waitAtMost(LONG_WAIT));
					return null;
				}
				catch (RuntimeException ex) {
					return ex;
				}
			});
			awaitWaiting();
			this.waiter.close();
			assertThat(blocked.get(10, TimeUnit.SECONDS)).isInstanceOf(LockNotAcquiredException.class)
				.hasMessageContaining(this.key)
				.hasMessageContaining("the registry was closed");
		}
	}

	@Test
	void anAsyncAcquisitionInProgressFailsAtOnceWhenTheEngineCloses() throws Exception {
		try (Lease held = this.holder.acquire(LockRequest.of(this.key))) {
			CompletableFuture<Lease> pending = this.waiter.acquireAsync(LockRequest.of(this.key).waitAtMost(LONG_WAIT));
			awaitWaiting();
			this.waiter.close();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> pending.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockNotAcquiredException.class)
				.withMessageContaining("the registry was closed");
		}
	}

	@Test
	void aLockViewBlockedInLockEndsWhenTheEngineCloses() throws Exception {
		try (Lease held = this.holder.acquire(LockRequest.of(this.key))) {
			Lock lock = this.waiter.asLock(this.key);
			CompletableFuture<Throwable> blocked = CompletableFuture.supplyAsync(() -> {
				try {
					lock.lock();
					return null;
				}
				catch (RuntimeException ex) {
					return ex;
				}
			});
			awaitWaiting();
			this.waiter.close();
			assertThat(blocked.get(10, TimeUnit.SECONDS)).isInstanceOf(LockNotAcquiredException.class);
		}
	}

	@Test
	void anAcquisitionAfterCloseFailsAtOnce() {
		this.waiter.close();
		assertThatExceptionOfType(LockNotAcquiredException.class)
			.isThrownBy(() -> this.waiter.acquire(LockRequest.of(this.key).waitAtMost(LONG_WAIT)))
			.withMessageContaining("the registry was closed");
		assertThat(this.waiter.acquireAsync(LockRequest.of(this.key))).isCompletedExceptionally();
	}

	@Test
	void closingReleasesTheLeasesStillHeld() {
		this.waiter.acquire(LockRequest.of(this.key).lease(Duration.ofMinutes(5)));
		this.waiter.close();
		// not left to expire in five minutes: free at once
		assertThat(this.holder.tryAcquire(LockRequest.of(this.key))).hasValueSatisfying(Lease::release);
	}

	/** Until the waiter has lost a round to the holder and waits for its release. */
	private void awaitWaiting() {
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.waiter.signals().isSubscribed(LockKeys.channel("lock:{" + this.key + "}")));
	}

}
