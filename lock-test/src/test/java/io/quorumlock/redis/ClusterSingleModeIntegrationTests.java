package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Single mode on a Redis Cluster of three masters: the whole cluster is the one node,
 * each lock one key in the slot of its hash tag. The registry contract, then what is
 * particular to a cluster: keys spread over masters, several keys in different slots, the
 * release message crossing nodes, renewal, fencing, the leak scan over every master, a
 * master going down and coming back, and the settings a cluster refuses.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterSingleModeIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.builder().nodes(3).cluster().build();

	private static final Duration LEASE = Duration.ofSeconds(10);

	/**
	 * Engines on the cluster, with a node timeout (500 ms) that a loaded 2-core build
	 * machine's answers fit in, still below a third of the shortest lease here
	 * ({@link DistributedLockRegistryContract#SHORT_LEASE}).
	 */
	static QuorumLockEngine.Builder onCluster() {
		return QuorumLockEngine.builder()
			.cluster(redis.uris().toArray(String[]::new))
			.nodeTimeout(Duration.ofMillis(500));
	}

	@Nested
	class Contract extends RedisRegistryContract {

		@Override
		RedisServers redis() {
			return redis;
		}

		@Override
		QuorumLockEngine engine() {
			return onCluster().build();
		}

		@Override
		List<RedisServer> nodesHolding(String redisKey) {
			return List.of(redis.nodeForKey(redisKey));
		}

		@Test
		void theClusterIsOneNodeWithQuorumOne() {
			assertThat(this.locks.quorum()).isEqualTo(1);
			assertThat(this.locks.mode()).isEqualTo("single");
			assertThat(this.locks.rejoinDelay()).isZero();
			assertThat(this.locks.nodeAddresses()).singleElement()
				.isEqualTo(
						"cluster("
								+ String.join(",",
										redis.nodes().stream().map((node) -> node.host() + ":" + node.port()).toList())
								+ ")");
		}

	}

	@Nested
	class OnTheCluster {

		private final AtomicInteger renewals = new AtomicInteger();

		private QuorumLockEngine locks;

		private QuorumLockEngine otherProcess;

		private String name;

		@BeforeEach
		void startEngines() {
			LockListener countRenewals = new LockListener() {

				@Override
				public void onRenewed(LockRequest request, Lease lease) {
					OnTheCluster.this.renewals.incrementAndGet();
				}

			};
			this.locks = onCluster().listener(countRenewals).build();
			this.otherProcess = onCluster().build();
			this.name = "c" + UUID.randomUUID().toString().substring(0, 8);
		}

		@AfterEach
		void closeEngines() {
			this.locks.close();
			this.otherProcess.close();
		}

		private LockRequest request(String key) {
			return LockRequest.of(key).name(this.name).lease(LEASE);
		}

		private String redisKey(String key) {
			return "lock:" + this.name + ":{" + key + "}";
		}

		/**
		 * One lock key per master, in master order: keys k0, k1, ... until all are hit.
		 */
		private List<String> oneKeyPerMaster() {
			Map<RedisServer, String> byMaster = new LinkedHashMap<>();
			for (int i = 0; byMaster.size() < redis.size(); i++) {
				byMaster.putIfAbsent(redis.nodeForKey(redisKey("k" + i)), "k" + i);
			}
			return redis.nodes().stream().map(byMaster::get).toList();
		}

		@Test
		void eachLockIsOneKeyOnTheMasterOfItsSlotAndLocksSpreadOverEveryMaster() {
			List<String> keys = oneKeyPerMaster();
			for (int i = 0; i < keys.size(); i++) {
				String key = keys.get(i);
				try (Lease lease = this.locks.acquire(request(key))) {
					long token = lease.fencingToken();
					assertThat(token).isPositive();
					RedisServer master = redis.node(i);
					assertThat(master.exists(redisKey(key))).as("lock key on its master %s", master).isTrue();
					assertThat(master.get(LockKeys.fenceKey(redisKey(key)))).as("fencing counter beside it")
						.isEqualTo(Long.toString(token));
					assertThat(redis.nodeForKey(LockKeys.fenceKey(redisKey(key)))).isSameAs(master);
					assertThat(this.otherProcess.tryAcquire(request(key))).isEmpty();
				}
				assertThat(redis.node(i).exists(redisKey(key))).isFalse();
				assertThat(this.otherProcess.tryAcquire(request(key))).hasValueSatisfying(Lease::release);
			}
		}

		@Test
		void severalKeysInSlotsOfDifferentMastersAreLockedTogether() {
			List<String> keys = oneKeyPerMaster();
			try (Lease all = this.locks.acquire(LockRequest.of(keys).name(this.name).lease(LEASE))) {
				for (int i = 0; i < keys.size(); i++) {
					assertThat(redis.node(i).exists(redisKey(keys.get(i)))).isTrue();
					assertThat(this.otherProcess.tryAcquire(request(keys.get(i)))).isEmpty();
				}
				assertThat(all.fencingToken()).isPositive();
			}
			// all or nothing: one key held elsewhere, nothing is left on the other
			// masters
			try (Lease blocker = this.otherProcess.acquire(request(keys.get(1)))) {
				assertThat(this.locks.tryAcquire(LockRequest.of(keys).name(this.name).lease(LEASE))).isEmpty();
				assertThat(redis.node(0).exists(redisKey(keys.get(0)))).isFalse();
				assertThat(redis.node(2).exists(redisKey(keys.get(2)))).isFalse();
			}
			assertThat(this.otherProcess.tryAcquire(LockRequest.of(keys).name(this.name).lease(LEASE)))
				.hasValueSatisfying(Lease::release);
		}

		@Test
		void aWaiterIsWokenByTheReleaseMessageWhateverNodeItSubscribedOn() throws Exception {
			// the waiter would poll only after 45 s: it can get the lock sooner only by
			// the release message, published on the master of the key and broadcast by
			// the cluster to the node its pub/sub connection happens to be on
			try (QuorumLockEngine patient = onCluster().retryDelay(Duration.ofSeconds(45), Duration.ofSeconds(45))
				.build()) {
				for (String key : oneKeyPerMaster()) {
					Lease held = this.locks.acquire(request(key));
					CompletableFuture<Lease> waiter = CompletableFuture
						.supplyAsync(() -> patient.acquire(request(key).waitAtMost(Duration.ofSeconds(40))));
					String channel = LockKeys.channel(redisKey(key));
					await().atMost(Duration.ofSeconds(10)).until(() -> subscribers(channel) == 1);
					assertThat(waiter).isNotDone();
					held.release();
					Lease next = waiter.get(20, TimeUnit.SECONDS);
					assertThat(next.isValid()).isTrue();
					next.release();
					await().atMost(Duration.ofSeconds(10)).until(() -> subscribers(channel) == 0);
				}
			}
		}

		private static long subscribers(String channel) {
			long sum = 0;
			for (RedisServer node : redis.nodes()) {
				List<?> reply = (List<?>) node.call("PUBSUB", "NUMSUB", channel);
				sum += (Long) reply.get(1);
			}
			return sum;
		}

		@Test
		void theWatchdogRenewsALeaseOnTheMasterOfItsSlot() {
			Duration shortLease = DistributedLockRegistryContract.SHORT_LEASE;
			try (Lease lease = this.locks.acquire(request("renewed").lease(shortLease).renew(true))) {
				await().atMost(Duration.ofSeconds(15)).until(() -> this.renewals.get() >= 3);
				assertThat(lease.isValid()).isTrue();
				RedisServer master = redis.nodeForKey(redisKey("renewed"));
				assertThat(master.pttl(redisKey("renewed"))).isPositive().isLessThanOrEqualTo(shortLease.toMillis());
				assertThat(this.otherProcess.tryAcquire(request("renewed"))).isEmpty();
			}
		}

		@Test
		void fencingTokensIncreaseWithEachHolderOfBothProcesses() {
			List<Long> tokens = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				QuorumLockEngine engine = (i % 2 == 0) ? this.locks : this.otherProcess;
				try (Lease lease = engine.acquire(request("fenced"))) {
					tokens.add(lease.fencingToken());
				}
			}
			assertThat(tokens).isSorted().doesNotHaveDuplicates();
		}

		@Test
		void theLeakScanAndForceUnlockReachEveryMaster() {
			List<String> keys = oneKeyPerMaster();
			for (int i = 0; i < keys.size(); i++) {
				redis.node(i).call("SET", redisKey(keys.get(i)), "leaked-without-ttl");
			}
			List<String> leaks = this.locks.keysWithoutTtl(100);
			assertThat(leaks).hasSize(3);
			for (String key : keys) {
				assertThat(leaks).anySatisfy((leak) -> assertThat(leak).endsWith(" " + redisKey(key)));
			}
			for (int i = 0; i < keys.size(); i++) {
				assertThat(this.locks.forceUnlock(redisKey(keys.get(i)))).isOne();
				assertThat(redis.node(i).exists(redisKey(keys.get(i)))).isFalse();
			}
			assertThat(this.locks.keysWithoutTtl(100)).isEmpty();
		}

		@Test
		void aMasterDownFailsOnlyItsSlotsAtOnceAndIsUsedAgainOnceBack() {
			List<String> keys = oneKeyPerMaster();
			assertThat(this.locks.nodes()).singleElement().satisfies((node) -> assertThat(node.up()).isTrue());
			redis.node(2).kill();
			await().atMost(Duration.ofSeconds(10)).until(() -> !this.locks.nodes().get(0).up());
			// commands for its slots are rejected while disconnected, not queued
			assertThatExceptionOfType(QuorumUnavailableException.class)
				.isThrownBy(() -> this.locks.acquire(request(keys.get(2))))
				.withMessageContaining("quorum unavailable");
			for (int i = 0; i < 2; i++) {
				try (Lease lease = this.locks.acquire(request(keys.get(i)))) {
					assertThat(lease.isValid()).isTrue();
				}
			}
			redis.node(2).restart();
			// the connection comes back in the background
			await().atMost(Duration.ofSeconds(30))
				.ignoreExceptions()
				.until(() -> this.locks.tryAcquire(request(keys.get(2))).map((lease) -> {
					lease.release();
					return true;
				}).orElse(false));
			assertThat(this.locks.nodes().get(0).up()).isTrue();
		}

		@Test
		void aClusterRefusesNodesBesideItSyncReplicasAndBracesInThePrefix() {
			assertThatIllegalArgumentException().isThrownBy(() -> onCluster().nodes(redis.uris().get(0)).build())
				.withMessage("cluster: a Redis Cluster is one node (single mode) and cannot be combined with nodes, "
						+ "got 1 node(s) as well");
			assertThatIllegalArgumentException().isThrownBy(() -> onCluster().syncReplicas(1).build())
				.withMessageContaining("syncReplicas 1 is not supported on a Redis Cluster");
			assertThatIllegalArgumentException().isThrownBy(() -> onCluster().keyPrefix("lock{x}:").build())
				.withMessageContaining("keyPrefix 'lock{x}:' must not contain '{' or '}' on a Redis Cluster");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> QuorumLockEngine.builder().cluster("redis://127.0.0.1:notaport"))
				.withMessageContaining("needs a host and a numeric port");
		}

	}

}
