package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockListener;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Slowness is not absence (only an answer decides): a master that did not answer in time
 * is unknown, never "no", "gone" or "held elsewhere". With the engine's defaults (only
 * the restart guard is off: the fixture's masters are fresh) and {@code waitAtMost = 0}:
 * <ul>
 * <li>a stall of every master (or of a majority) for 250 ms during a call, which is what
 * a client sees when its own process is stopped for a moment, is waited out: the call is
 * granted, in single and in quorum mode;</li>
 * <li>a master that did not answer is never reported as a holder of a free key;</li>
 * <li>fencing that heard one yes, one "not mine" and one silence is no loss: it is tried
 * again while the lease is valid, and no loss is reported to the listeners.</li>
 * </ul>
 * No wall-clock figure is asserted: each stall is a SIGSTOP ended by a timer's SIGCONT.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SlownessIsNotAbsenceIntegrationTests {

	/**
	 * Longer than the default node timeout, shorter than any retry budget worth having.
	 */
	static final Duration STALL = Duration.ofMillis(250);

	/** The bound on any one call of these tests; the stalls end long before. */
	static final long CALL_SECONDS = 20;

	/** An engine with the defaults (restart guard off: fresh fixture masters). */
	static QuorumLockEngine defaults(RedisServers redis, LockListener listener) {
		QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.rejoinDelay(Duration.ZERO)
			.listener(listener)
			.build();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> engine.nodes().stream().allMatch(RegistryStatus.Node::voting));
		return engine;
	}

	static LockRequest free() {
		return LockRequest.of("free-" + UUID.randomUUID());
	}

	static Throwable cause(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/**
	 * What the listener heard: losses and refusals, each kept for the failure message.
	 */
	static final class Heard implements LockListener {

		final List<LeaseLostException> lost = new CopyOnWriteArrayList<>();

		final List<Throwable> notAcquired = new CopyOnWriteArrayList<>();

		final AtomicInteger renewed = new AtomicInteger();

		@Override
		public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
			this.lost.add(cause);
		}

		@Override
		public void onNotAcquired(LockRequest request, Duration waited, Throwable failure) {
			this.notAcquired.add(failure);
		}

		@Override
		public void onRenewed(LockRequest request, Lease lease) {
			this.renewed.incrementAndGet();
		}

	}

	@Timeout(value = 60, unit = TimeUnit.SECONDS)
	abstract static class EveryMasterStalled {

		final Heard heard = new Heard();

		final Stalls stalls = new Stalls();

		QuorumLockEngine locks;

		abstract RedisServers redis();

		@BeforeEach
		void start() {
			this.locks = defaults(redis(), this.heard);
		}

		@AfterEach
		void stop() {
			this.stalls.close();
			this.locks.close();
		}

		private void stallEveryMaster() {
			this.stalls.stall(STALL, redis().nodes());
		}

		@Test
		void aBlockingCallWithoutAWaitOutlastsAStallOfEveryMaster() {
			stallEveryMaster();
			try (Lease lease = this.locks.acquire(free())) {
				assertThat(lease.isValid()).isTrue();
			}
			assertThat(this.heard.notAcquired).isEmpty();
		}

		@Test
		void anAsynchronousCallWithoutAWaitOutlastsAStallOfEveryMaster() throws Exception {
			stallEveryMaster();
			CompletableFuture<Lease> grant = this.locks.acquireAsync(free());
			try (Lease lease = grant.get(CALL_SECONDS, TimeUnit.SECONDS)) {
				assertThat(lease.isValid()).isTrue();
			}
			assertThat(this.heard.notAcquired).isEmpty();
		}

		@Test
		void aTryOnceOutlastsAStallOfEveryMaster() {
			stallEveryMaster();
			Optional<Lease> lease = this.locks.tryAcquire(free());
			assertThat(lease).as("a free key tried once while every master stalled for %s", STALL).isPresent();
			lease.get().release();
			assertThat(this.heard.notAcquired).isEmpty();
		}

	}

	@Nested
	@Timeout(value = 60, unit = TimeUnit.SECONDS)
	class SingleMaster extends EveryMasterStalled {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(1);

		@Override
		RedisServers redis() {
			return redis;
		}

	}

	@Nested
	@Timeout(value = 60, unit = TimeUnit.SECONDS)
	class ThreeMasters extends EveryMasterStalled {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(3);

		@Override
		RedisServers redis() {
			return redis;
		}

		@Test
		void aMajorityStalledDuringACallIsWaitedOutAndNeverTakenForAHolder() {
			this.stalls.stall(STALL, redis.node(1), redis.node(2));
			try (Lease lease = this.locks.acquire(free())) {
				assertThat(lease.isValid()).isTrue();
			}
			assertThat(this.heard.notAcquired).isEmpty();
		}

		@Test
		void aSilentMasterIsNeverReportedAsAHolderOfAFreeKey() throws Exception {
			RedisServer silent = redis.node(2);
			String silentAddress = silent.host() + ":" + silent.port();
			List<CompletableFuture<Lease>> calls = new ArrayList<>();
			try (BusyThreads busy = BusyThreads.fourPerCore()) {
				this.stalls.stall(Duration.ofMillis(300), silent);
				for (int i = 0; i < 20; i++) {
					calls.add(this.locks.acquireAsync(free()));
				}
				CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
					.handle((ok, error) -> null)
					.get(CALL_SECONDS, TimeUnit.SECONDS);
			}
			List<Throwable> failures = new ArrayList<>();
			for (CompletableFuture<Lease> call : calls) {
				call.handle((lease, error) -> {
					if (error != null) {
						failures.add(cause(error));
					}
					else {
						lease.release();
					}
					return null;
				}).join();
			}
			assertThat(failures).as("a free key, one master silent: never \"held elsewhere\"")
				.noneMatch(LockNotAcquiredException.class::isInstance);
			assertThat(failures).as("a refusal for missing answers names the silent master")
				.allSatisfy((failure) -> assertThat(failure).isInstanceOf(QuorumUnavailableException.class)
					.hasMessageContaining(silentAddress));
			assertThat(failures).as("two masters answer, the third is back in 300 ms: every call granted").isEmpty();
		}

		@Test
		void fencingThatHeardOneYesOneNotMineAndOneSilenceIsNoLoss() throws Exception {
			Lease lease = this.locks.acquire(free());
			String redisKey = "lock:{" + lease.keys().get(0) + "}";
			// held on every master first, so that each one's answer below is known
			await().atMost(Duration.ofSeconds(10))
				.until(() -> redis.nodes().stream().allMatch((node) -> node.exists(redisKey)));
			// B: "not mine" (its SET timed out in a real run; here the key is deleted by
			// hand); C: silent for a while; A: yes
			redis.node(1).call("DEL", redisKey);
			this.stalls.stall(Duration.ofMillis(300), redis.node(2));
			CompletableFuture<Long> token = CompletableFuture.supplyAsync(lease::fencingToken);
			Throwable failure = token.handle((value, error) -> (error != null) ? cause(error) : null)
				.get(CALL_SECONDS, TimeUnit.SECONDS);
			assertThat(failure instanceof LeaseLostException)
				.as("one yes, one \"not mine\" and one silence: the lease is not lost (%s)", failure)
				.isFalse();
			assertThat(this.heard.lost).as("losses reported to the listeners").isEmpty();
			assertThat(lease.isValid()).isTrue();
			if (failure != null) {
				// tried again while valid, until its rounds gave up: never "lost"
				assertThat(failure).isInstanceOf(QuorumUnavailableException.class);
			}
			else {
				// C continued: yes from A and C
				assertThat(token.get()).isPositive();
			}
			lease.release();
			assertThat(this.heard.lost).isEmpty();
		}

	}

}
