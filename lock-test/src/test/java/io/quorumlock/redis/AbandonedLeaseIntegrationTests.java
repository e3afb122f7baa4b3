package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.quorumlock.Lease;
import io.quorumlock.LockException;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lease the caller can no longer receive (its future timed out, was completed or
 * cancelled by the caller, or its waiting thread was interrupted) is released at once: no
 * key stays on the nodes, no local gate stays held.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AbandonedLeaseIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	private final List<QuorumLockEngine> engines = new ArrayList<>();

	private QuorumLockEngine locks;

	private String key;

	@BeforeEach
	void start() {
		this.locks = engine();
		this.key = "k" + UUID.randomUUID();
	}

	@AfterEach
	void close() {
		this.engines.forEach(QuorumLockEngine::close);
	}

	private QuorumLockEngine engine() {
		QuorumLockEngine engine = QuorumLockEngine.builder().nodes(redis.uris()).build();
		this.engines.add(engine);
		return engine;
	}

	/** The ways a caller gives up on the future {@code acquireAsync} returned. */
	enum GiveUp {

		OR_TIMEOUT((f) -> f.orTimeout(1, TimeUnit.NANOSECONDS)),

		COMPLETE_ON_TIMEOUT((f) -> f.completeOnTimeout(null, 1, TimeUnit.NANOSECONDS)),

		COMPLETE((f) -> {
			f.complete(null);
			return f;
		}),

		COMPLETE_EXCEPTIONALLY((f) -> {
			f.completeExceptionally(new IllegalStateException("caller gave up"));
			return f;
		}),

		CANCEL((f) -> {
			f.cancel(false);
			return f;
		});

		final Function<CompletableFuture<Lease>, CompletableFuture<Lease>> apply;

		GiveUp(Function<CompletableFuture<Lease>, CompletableFuture<Lease>> apply) {
			this.apply = apply;
		}

	}

	private String redisKey() {
		return "lock:{" + this.key + "}";
	}

	/** Nothing of the abandoned acquisitions is left: not on Redis, not in this JVM. */
	private void assertNothingLeft() {
		await().pollInterval(Duration.ofMillis(5))
			.atMost(Duration.ofSeconds(10))
			.until(() -> !redis.node(0).exists(redisKey()));
		// another process gets it promptly...
		engine().acquire(LockRequest.of(this.key).waitAtMost(Duration.ofSeconds(5))).release();
		// ...and so does another caller of this JVM (no local gate left held)
		this.locks.acquire(LockRequest.of(this.key).waitAtMost(Duration.ofSeconds(5))).release();
	}

	@ParameterizedTest
	@EnumSource(GiveUp.class)
	void grantArrivingAfterTheCallerGaveUpIsReleased(GiveUp giveUp) {
		QuorumLockEngine holder = engine();
		Lease held = holder.acquire(LockRequest.of(this.key));
		CompletableFuture<Lease> waiting = giveUp.apply
			.apply(this.locks.acquireAsync(LockRequest.of(this.key).waitAtMost(Duration.ofSeconds(30))));
		await().atMost(Duration.ofSeconds(10)).until(waiting::isDone);
		held.release();
		assertNothingLeft();
	}

	@ParameterizedTest
	@EnumSource(GiveUp.class)
	void giveUpRacingTheGrantLeavesNothing(GiveUp giveUp) {
		for (int i = 0; i < 100; i++) {
			CompletableFuture<Lease> future = this.locks.acquireAsync(LockRequest.of(this.key));
			if (ThreadLocalRandom.current().nextBoolean()) {
				Thread.onSpinWait();
			}
			giveUp.apply.apply(future);
			Lease lease = future.handle((l, e) -> l).join();
			if (lease != null) {
				lease.release();
			}
			else {
				// the caller has no lease: whatever the acquisition got must be undone
				await().pollInterval(Duration.ofMillis(5))
					.atMost(Duration.ofSeconds(10))
					.until(() -> !redis.node(0).exists(redisKey()));
			}
		}
		assertNothingLeft();
	}

	@Test
	void interruptRacingTheGrantLeavesNothing() throws Exception {
		for (int i = 0; i < 100; i++) {
			AtomicReference<Lease> got = new AtomicReference<>();
			Thread caller = new Thread(() -> {
				try {
					got.set(this.locks.acquire(LockRequest.of(this.key).waitAtMost(Duration.ofSeconds(5))));
				}
				catch (LockException ex) {
					// interrupted before the grant
				}
			});
			caller.start();
			if (ThreadLocalRandom.current().nextBoolean()) {
				Thread.onSpinWait();
			}
			caller.interrupt();
			caller.join(10_000);
			assertThat(caller.isAlive()).isFalse();
			if (got.get() != null) {
				got.get().release();
			}
			else {
				await().pollInterval(Duration.ofMillis(5))
					.atMost(Duration.ofSeconds(10))
					.until(() -> !redis.node(0).exists(redisKey()));
			}
		}
		assertNothingLeft();
	}

}
