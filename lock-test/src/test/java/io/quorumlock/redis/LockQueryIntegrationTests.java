package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockMode;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Whether a key is locked, and by whom, asked of real masters: held anywhere by a quorum
 * of answers, never by a guess; held by this thread or this engine from its own leases. A
 * master down, stalled or held back is unknown: the answer comes from the others only
 * when they decide it, else the query throws {@link QuorumUnavailableException}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockQueryIntegrationTests {

	static QuorumLockEngine engine(RedisServers redis) {
		QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			// the fixture starts its servers fresh: no restart guard here
			.rejoinDelay(Duration.ZERO)
			.build();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> engine.nodes().stream().allMatch(RegistryStatus.Node::voting));
		return engine;
	}

	@Nested
	class OnThreeMasters {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(3);

		final Stalls stalls = new Stalls();

		QuorumLockEngine locks;

		QuorumLockEngine otherInstance;

		String key;

		@BeforeEach
		void start() {
			this.locks = engine(redis);
			this.otherInstance = engine(redis);
			this.key = "q" + UUID.randomUUID();
		}

		@AfterEach
		void stop() {
			this.stalls.close();
			redis.nodes().forEach((node) -> {
				if (node.isPaused()) {
					node.resume();
				}
			});
			this.locks.close();
			this.otherInstance.close();
		}

		LockRequest request() {
			return LockRequest.of(this.key).lease(Duration.ofSeconds(30)).renew(false);
		}

		String redisKey() {
			return "lock:{" + this.key + "}";
		}

		@Test
		void aKeyHeldByAnotherInstanceIsLockedButNotHeldHere() {
			assertThat(this.locks.isLocked(request())).isFalse();
			try (Lease lease = this.otherInstance.acquire(request())) {
				assertThat(this.locks.isLocked(request())).isTrue();
				assertThat(this.locks.isHeldByThisInstance(request())).isFalse();
				assertThat(this.locks.isHeldByCurrentThread(request())).isFalse();
				assertThat(this.otherInstance.isHeldByThisInstance(request())).isTrue();
			}
			assertThat(this.locks.isLocked(request())).isFalse();
			assertThat(this.otherInstance.isHeldByThisInstance(request())).isFalse();
		}

		@Test
		void sharedHoldersLockTheKeyForAQueryInEitherMode() {
			try (Lease lease = this.otherInstance.acquire(request().mode(LockMode.SHARED))) {
				assertThat(this.locks.isLocked(request())).isTrue();
				assertThat(this.locks.isLocked(request().mode(LockMode.SHARED))).isTrue();
				assertThat(this.otherInstance.isHeldByThisInstance(request())).isTrue();
			}
			assertThat(this.locks.isLocked(request())).isFalse();
		}

		@Test
		void theCurrentThreadHoldsAKeyOnlyWithinTheScopeOfItsLease() throws Exception {
			Boolean inAction = this.locks.execute(request(), () -> this.locks.isHeldByCurrentThread(request()));
			assertThat(inAction).isTrue();
			try (Lease lease = this.locks.acquire(request())) {
				// a lease from acquire belongs to no thread, but to this engine
				assertThat(this.locks.isHeldByCurrentThread(request())).isFalse();
				assertThat(this.locks.isHeldByThisInstance(request())).isTrue();
			}
			Lock lock = this.locks.asLock(this.key);
			lock.lock();
			try {
				assertThat(this.locks.isHeldByCurrentThread(LockRequest.of(this.key))).isTrue();
				boolean elsewhere = CompletableFuture
					.supplyAsync(() -> this.locks.isHeldByCurrentThread(LockRequest.of(this.key)))
					.get(10, TimeUnit.SECONDS);
				assertThat(elsewhere).as("asked on another thread").isFalse();
			}
			finally {
				lock.unlock();
			}
			assertThat(this.locks.isHeldByCurrentThread(LockRequest.of(this.key))).isFalse();
			assertThat(this.locks.isHeldByThisInstance(LockRequest.of(this.key))).isFalse();
		}

		@Test
		void theAsynchronousQueryGivesTheSameAnswers() throws Exception {
			assertThat(this.locks.isLockedAsync(request()).get(10, TimeUnit.SECONDS)).isFalse();
			try (Lease lease = this.otherInstance.acquire(request())) {
				assertThat(this.locks.isLockedAsync(request()).get(10, TimeUnit.SECONDS)).isTrue();
			}
		}

		@Test
		void aQueryIsAboutOneKeyWithoutPermits() {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> this.locks.isLocked(LockRequest.of(List.of("a", "b"))))
				.withMessageContaining("one key");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> this.locks.isHeldByThisInstance(LockRequest.of("a").permits(3)))
				.withMessageContaining("without permits");
		}

		@Test
		void aMasterDownLeavesTheOthersToDecide() {
			redis.node(0).kill();
			assertThat(this.locks.isLocked(request())).isFalse();
			try (Lease lease = this.otherInstance.acquire(request())) {
				assertThat(this.locks.isLocked(request())).isTrue();
			}
			assertThat(this.locks.isLocked(request())).isFalse();
		}

		@Test
		void aMasterDownIsUnknownNeverFree() {
			try (Lease lease = this.otherInstance.acquire(request())) {
				// held on masters 0 and 2 only (gone from 1), and master 2 is down: the
				// holder may have its quorum through master 2, so "free" would be a guess
				redis.node(1).call("DEL", redisKey());
				redis.node(2).kill();
				assertThatExceptionOfType(QuorumUnavailableException.class)
					.isThrownBy(() -> this.locks.isLocked(request()))
					.withMessageContaining("key '" + redisKey() + "'")
					.withMessageContaining("cannot tell whether it is held")
					.withMessageContaining("1 of 3 nodes answered held, 1 free, 1 unknown, quorum 2")
					.withMessageContaining(redis.node(2).host() + ":" + redis.node(2).port());
			}
		}

		@Test
		void aMasterThatDoesNotAnswerIsUnknownNeverFree() {
			try (Lease lease = this.otherInstance.acquire(request())) {
				redis.node(1).call("DEL", redisKey());
				redis.node(2).pause();
				assertThatExceptionOfType(QuorumUnavailableException.class)
					.isThrownBy(() -> this.locks.isLocked(request()))
					.withMessageContaining("1 of 3 nodes answered held, 1 free, 1 unknown, quorum 2")
					.withMessageContaining(redis.node(2).host() + ":" + redis.node(2).port());
			}
		}

		@Test
		void aMasterStalledForAMomentIsWaitedFor() {
			try (Lease lease = this.otherInstance.acquire(request())) {
				redis.node(1).call("DEL", redisKey());
				// far shorter than the retry budget (1 s) the query waits for an answer
				this.stalls.stall(Duration.ofMillis(250), redis.node(2));
				assertThat(this.locks.isLocked(request())).isTrue();
			}
		}

	}

	@Nested
	class OnOneMaster {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(1);

		@Test
		void singleModeAnswersFromItsMaster() {
			try (QuorumLockEngine locks = engine(redis); QuorumLockEngine other = engine(redis)) {
				LockRequest request = LockRequest.of("q" + UUID.randomUUID());
				assertThat(locks.isLocked(request)).isFalse();
				try (Lease lease = other.acquire(request)) {
					assertThat(locks.isLocked(request)).isTrue();
				}
				assertThat(locks.isLocked(request)).isFalse();
				redis.node(0).kill();
				assertThatExceptionOfType(QuorumUnavailableException.class).isThrownBy(() -> locks.isLocked(request))
					.withMessageContaining("0 of 1 nodes answered held, 0 free, 1 unknown, quorum 1");
			}
		}

	}

	@Nested
	class UnderTheRestartGuard {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(3);

		@Test
		void mastersHeldBackAreUnknownNeverFree() {
			// fresh masters look like masters that lost their data: held back for a
			// minute
			try (QuorumLockEngine locks = QuorumLockEngine.builder()
				.nodes(redis.uris())
				.rejoinDelay(Duration.ofSeconds(60))
				.build()) {
				assertThatExceptionOfType(QuorumUnavailableException.class)
					.isThrownBy(() -> locks.isLocked(LockRequest.of("q" + UUID.randomUUID())))
					.withMessageContaining("0 free, 3 unknown, quorum 2");
			}
		}

	}

}
