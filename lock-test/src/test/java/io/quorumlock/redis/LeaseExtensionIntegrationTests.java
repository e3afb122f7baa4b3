package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockListener;
import io.quorumlock.LockMode;
import io.quorumlock.LockRequest;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link Lease#extend(Duration)} on one node and on a quorum of three: the keys' TTL is
 * raised on every node, the watchdog's expiry check moves with the validity, a new
 * minimum hold replaces the old one, shared and permit leases extend their own hold, and
 * a lease a quorum no longer holds (keys taken over, a majority killed or paused) is not
 * extended and is reported lost.
 */
class LeaseExtensionIntegrationTests {

	@Nested
	class SingleNode extends Contract {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(1);

		@Override
		RedisServers redis() {
			return redis;
		}

	}

	@Nested
	class ThreeNodes extends Contract {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(3);

		@Override
		RedisServers redis() {
			return redis;
		}

	}

	@Timeout(value = 60, unit = TimeUnit.SECONDS)
	abstract static class Contract {

		/**
		 * Not a test of timeouts: room for a loaded machine's answers, below a third of
		 * the shortest lease here.
		 */
		private static final Duration NODE_TIMEOUT = Duration.ofMillis(500);

		private static final Duration SHORT = NODE_TIMEOUT.multipliedBy(3).plusMillis(100);

		private static final Duration LONG = Duration.ofSeconds(20);

		private static final Duration HOLD = Duration.ofSeconds(2);

		/** Losses the engine reported, by the lease lost. */
		private final Map<Lease, LeaseLostException> losses = new ConcurrentHashMap<>();

		private QuorumLockEngine locks;

		private QuorumLockEngine otherProcess;

		private String name;

		abstract RedisServers redis();

		private QuorumLockEngine engine(LockListener listener) {
			return QuorumLockEngine.builder()
				.nodes(redis().uris())
				.nodeTimeout(NODE_TIMEOUT)
				.rejoinDelay(Duration.ZERO)
				.listener(listener)
				.build();
		}

		@BeforeEach
		void startEngines() {
			this.locks = engine(new LockListener() {
				@Override
				public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
					Contract.this.losses.put(lease, cause);
				}
			});
			this.otherProcess = engine(new LockListener() {
			});
			this.name = "x" + UUID.randomUUID().toString().substring(0, 8);
		}

		@AfterEach
		void closeEngines() {
			redis().nodes().forEach((node) -> {
				if (node.isPaused()) {
					node.resume();
				}
			});
			this.locks.close();
			this.otherProcess.close();
		}

		private LockRequest request(String key) {
			return LockRequest.of(key).name(this.name).lease(SHORT).renew(false);
		}

		private String redisKey(String key) {
			return "lock:" + this.name + ":{" + key + "}";
		}

		private void awaitTtlAbove(String redisKey, Duration floor) {
			for (RedisServer node : redis().nodes()) {
				await("TTL on " + node).atMost(Duration.ofSeconds(5))
					.until(() -> node.pttl(redisKey) > floor.toMillis());
			}
		}

		private List<RedisServer> majority() {
			return redis().nodes().subList(0, redis().nodes().size() / 2 + 1);
		}

		/** The loss the listeners heard of (they run on their own thread). */
		private LeaseLostException awaitLoss(Lease lease) {
			return await().atMost(Duration.ofSeconds(5)).until(() -> this.losses.get(lease), (loss) -> loss != null);
		}

		@Test
		void extensionRaisesTheTtlEverywhereAndMovesTheExpiryCheck() {
			Lease lease = this.locks.acquire(request("job"));
			// taken after the first: its watchdog reports it lost after the first's old
			// end
			Lease witness = this.locks.acquire(request("witness"));
			assertThat(lease.extend(LONG)).isTrue();
			awaitTtlAbove(redisKey("job"), SHORT);
			RegistryStatus.HeldLease shown = this.locks.leases()
				.stream()
				.filter((held) -> held.keys().equals(List.of(redisKey("job"))))
				.findFirst()
				.orElseThrow();
			assertThat(shown.remaining()).isGreaterThan(SHORT);
			await().atMost(Duration.ofSeconds(10)).until(() -> this.losses.containsKey(witness));
			assertThat(this.losses).doesNotContainKey(lease);
			assertThat(lease.isValid()).isTrue();
			assertThat(this.otherProcess.tryAcquire(request("job"))).isEmpty();
			lease.release();
			assertThat(this.losses).doesNotContainKey(lease);
			assertThat(this.otherProcess.tryAcquire(request("job"))).hasValueSatisfying(Lease::release);
		}

		@Test
		void newMinimumHoldKeepsTheKeysAfterTheRelease() {
			Lease lease = this.locks.acquire(request("job"));
			assertThat(lease.extend(LONG, HOLD)).isTrue();
			awaitTtlAbove(redisKey("job"), HOLD);
			lease.release();
			for (RedisServer node : redis().nodes()) {
				await("hold on " + node).atMost(Duration.ofSeconds(5))
					.until(() -> node.pttl(redisKey("job")) > 0 && node.pttl(redisKey("job")) <= HOLD.toMillis());
			}
			assertThat(this.otherProcess.tryAcquire(request("job"))).isEmpty();
		}

		@Test
		void extensionWithoutMinimumHoldReleasesAtOnce() {
			Lease lease = this.locks.acquire(request("job").holdAtLeast(SHORT));
			assertThat(lease.extend(LONG, Duration.ZERO)).isTrue();
			lease.release();
			for (RedisServer node : redis().nodes()) {
				await("gone on " + node).atMost(Duration.ofSeconds(5)).until(() -> !node.exists(redisKey("job")));
			}
		}

		@Test
		void keysAnotherTokenHoldsAreNotExtended() {
			Lease lease = this.locks.acquire(request("job"));
			for (RedisServer node : redis().nodes()) {
				await().atMost(Duration.ofSeconds(5)).until(() -> node.exists(redisKey("job")));
				node.call("SET", redisKey("job"), "someone-else", "PX", "5000");
			}
			assertThat(lease.extend(LONG)).isFalse();
			assertThat(lease.isValid()).isFalse();
			assertThat(awaitLoss(lease)).hasMessageContaining("extension to 20000 ms extended 0 of");
			for (RedisServer node : redis().nodes()) {
				assertThat(node.get(redisKey("job"))).isEqualTo("someone-else");
				assertThat(node.pttl(redisKey("job"))).isLessThanOrEqualTo(5000);
			}
		}

		@Test
		void majorityKilledFailsCleanly() {
			Lease lease = this.locks.acquire(request("job"));
			majority().forEach(RedisServer::kill);
			assertThat(lease.extend(LONG)).isFalse();
			// no answer decided: not lost at once, but when its own validity runs out
			assertThat(awaitLoss(lease)).hasMessageContaining("expired unrenewed");
			assertThat(lease.isValid()).isFalse();
			assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::release);
		}

		@Test
		void majorityPausedLeavesTheLeaseToItsValidity() {
			Lease lease = this.locks.acquire(request("job"));
			majority().forEach(RedisServer::pause);
			assertThat(lease.extendAsync(LONG)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(false);
			// silence is no loss: the lease's own clock ends it
			assertThat(awaitLoss(lease)).hasMessageContaining("expired unrenewed");
		}

		@Test
		void sharedHoldIsExtended() {
			Lease reader = this.locks.acquire(request("doc").mode(LockMode.SHARED));
			assertThat(reader.extend(LONG)).isTrue();
			awaitTtlAbove(redisKey("doc"), SHORT);
			assertThat(reader.remaining()).isGreaterThan(SHORT);
			assertThat(this.otherProcess.tryAcquire(request("doc"))).isEmpty();
			reader.release();
			assertThat(this.otherProcess.tryAcquire(request("doc"))).hasValueSatisfying(Lease::release);
		}

		@Test
		void permitIsExtended() {
			Lease permit = this.locks.acquire(request("pool").permits(2));
			assertThat(permit.extend(LONG)).isTrue();
			// the slot the permit took, once every node has it
			String slot = await().atMost(Duration.ofSeconds(5))
				.until(() -> List.of(0, 1, 2)
					.stream()
					.map((i) -> redisKey("pool") + ":permit:" + i)
					.filter((key) -> redis().nodes().stream().allMatch((node) -> node.exists(key)))
					.findFirst()
					.orElse(null), (key) -> key != null);
			awaitTtlAbove(slot, SHORT);
			assertThat(permit.remaining()).isGreaterThan(SHORT);
			permit.release();
		}

	}

}
