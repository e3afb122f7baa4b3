package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A multi-key lease is granted only with proof that every key was held without
 * interruption: the first key of a lease that expired while the acquisition waited for
 * the second, and was taken by another client meanwhile, is never granted over.
 */
@Timeout(value = 45, unit = TimeUnit.SECONDS)
class MultiKeyGrantIntegrationTests {

	@RegisterExtension
	static final RedisServers one = RedisServers.start(1);

	@RegisterExtension
	static final RedisServers three = RedisServers.start(3);

	private final List<QuorumLockEngine> engines = new ArrayList<>();

	@AfterEach
	void close() {
		this.engines.forEach(QuorumLockEngine::close);
	}

	private QuorumLockEngine engine(RedisServers redis) {
		QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.rejoinDelay(Duration.ZERO) // the fixture's servers are fresh
			// not the default: the short lease below must fit three, whatever the default
			// is
			.nodeTimeout(Duration.ofMillis(500))
			.build();
		this.engines.add(engine);
		return engine;
	}

	private static RedisServers servers(int nodes) {
		return (nodes == 1) ? one : three;
	}

	@ParameterizedTest(name = "{0} node(s)")
	@ValueSource(ints = { 1, 3 })
	void firstKeyExpiredAndTakenWhileWaitingForTheSecondIsNotGrantedOver(int nodes) throws Exception {
		RedisServers redis = servers(nodes);
		QuorumLockEngine waiter = engine(redis);
		QuorumLockEngine secondHolder = engine(redis);
		QuorumLockEngine thief = engine(redis);
		String id = UUID.randomUUID().toString();
		String k1 = "a-" + id;
		String k2 = "b-" + id;
		String redisK1 = "lock:{" + k1 + "}";
		Lease k2Lease = secondHolder.acquire(LockRequest.of(k2).lease(Duration.ofSeconds(20)));
		CompletableFuture<Lease> waiting = waiter.acquireAsync(LockRequest.of(List.of(k1, k2))
			.lease(DistributedLockRegistryContract.SHORT_LEASE)
			.waitAtMost(Duration.ofSeconds(30)));
		// k1 taken at once; nothing renews it while the waiter waits for k2, so it
		// expires
		await().atMost(Duration.ofSeconds(10)).until(() -> holders(redis, redisK1) > 0);
		await().atMost(Duration.ofSeconds(10)).until(() -> holders(redis, redisK1) == 0);
		Lease k1Lease = thief.acquire(LockRequest.of(k1).lease(Duration.ofSeconds(20)));
		k2Lease.release();
		// the waiter takes k2, finds k1 no longer its own and goes back to waiting for k1
		await().atMost(Duration.ofSeconds(20))
			.until(() -> waiting.isDone() || waiter.signals().isSubscribed(LockKeys.channel(redisK1)));
		assertThat(waiting).as("granted over a k1 held by another client").isNotDone();
		assertThat(k1Lease.isValid()).isTrue();
		k1Lease.release();
		// once k1 is free again the waiter takes it anew and is granted both keys
		Lease granted = waiting.get(20, TimeUnit.SECONDS);
		assertThat(granted.isValid()).isTrue();
		RedisLease lease = (RedisLease) granted;
		int quorum = nodes / 2 + 1;
		// each key is held by the token of the round that won it
		assertThat(holdersOf(redis, redisK1, lease.token(0))).isGreaterThanOrEqualTo(quorum);
		assertThat(holdersOf(redis, "lock:{" + k2 + "}", lease.token(1))).isGreaterThanOrEqualTo(quorum);
		granted.release();
	}

	private static int holders(RedisServers redis, String key) {
		int n = 0;
		for (RedisServer node : redis.nodes()) {
			n += node.exists(key) ? 1 : 0;
		}
		return n;
	}

	private static int holdersOf(RedisServers redis, String key, String token) {
		int n = 0;
		for (RedisServer node : redis.nodes()) {
			n += token.equals(node.get(key)) ? 1 : 0;
		}
		return n;
	}

}
