package io.quorumlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * When a quorum cannot vote, a caller is told at once unless waiting can help: with a
 * majority of masters down, a 30 s wait fails within a few node timeouts; with masters
 * held back by a restart guard that ends within the wait, it succeeds. And a split vote
 * (contenders that each took some masters, none a quorum) is retried even without a wait.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuorumReachIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private static final Duration NODE_TIMEOUT = Duration.ofMillis(100);

	private String key;

	@BeforeEach
	void key() {
		this.key = "k" + UUID.randomUUID();
	}

	@Test
	@Timeout(value = 20, unit = TimeUnit.SECONDS) // far below the call's 30 s wait
	void withAMajorityOfMastersDownAWaitingCallFailsAtOnce() {
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.rejoinDelay(Duration.ZERO)
			.nodeTimeout(NODE_TIMEOUT)
			.build()) {
			redis.node(1).kill();
			redis.node(2).kill();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> !engine.nodes().get(1).up() && !engine.nodes().get(2).up());
			// not the 30 s it may wait: once two masters have been down for longer than a
			// reconnect takes (the retry budget), the call fails
			assertThatExceptionOfType(QuorumUnavailableException.class)
				.isThrownBy(() -> engine.acquire(LockRequest.of(this.key).waitAtMost(Duration.ofSeconds(30))))
				.withMessageContaining("not connected")
				.withMessageContaining("waited at most 30000 ms");
		}
	}

	@Test
	void mastersHeldBackByAGuardEndingWithinTheWaitAreWaitedFor() {
		Duration guard = Duration.ofSeconds(2);
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(NODE_TIMEOUT)
			.defaults(LockOptions.none().lease(guard))
			.rejoinDelay(guard)
			.build()) {
			// the masters start empty: held back for the guard, which ends within the
			// wait
			assertThat(engine.nodes()).noneMatch(RegistryStatus.Node::voting);
			Lease lease = engine.acquire(LockRequest.of(this.key).waitAtMost(Duration.ofSeconds(30)));
			assertThat(lease.isValid()).isTrue();
			lease.release();
		}
	}

	@Test
	void aSplitVoteIsRetriedEvenWithoutAWait() {
		String redisKey = "lock:{" + this.key + "}";
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.rejoinDelay(Duration.ZERO)
			.nodeTimeout(NODE_TIMEOUT)
			.build()) {
			// two contenders hold one master each, briefly: nobody has a quorum
			redis.node(0).call("SET", redisKey, "aaaaaaaaaaaa" + "0".repeat(28), "PX", "150");
			redis.node(1).call("SET", redisKey, "bbbbbbbbbbbb" + "0".repeat(28), "PX", "150");
			Optional<Lease> lease = engine.tryAcquire(LockRequest.of(this.key));
			assertThat(lease).as("taken once the split cleared, within the window, with a zero wait").isPresent();
			lease.get().release();
			// one contender on a quorum is no split: a zero wait fails at once
			String holder = "cccccccccccc" + "0".repeat(28);
			redis.node(0).call("SET", redisKey, holder, "PX", "150");
			redis.node(1).call("SET", redisKey, holder, "PX", "150");
			assertThat(engine.tryAcquire(LockRequest.of(this.key))).isEmpty();
			// and its round is undone on the master it took
			await().atMost(Duration.ofSeconds(5)).until(() -> !redis.node(2).exists(redisKey));
		}
	}

	@Test
	void aSplitVoteWithAMasterDownIsRetriedToo() {
		String redisKey = "lock:{" + this.key + "}";
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.rejoinDelay(Duration.ZERO)
			.nodeTimeout(NODE_TIMEOUT)
			.build()) {
			redis.node(2).kill();
			await().atMost(Duration.ofSeconds(10)).until(() -> !engine.nodes().get(2).up());
			// another contender holds one of the two masters left, briefly: nobody has a
			// quorum of two
			redis.node(0).call("SET", redisKey, "aaaaaaaaaaaa" + "0".repeat(28), "PX", "150");
			Optional<Lease> lease = engine.tryAcquire(LockRequest.of(this.key));
			assertThat(lease).as("taken once the split cleared, within the window, with a zero wait").isPresent();
			lease.get().release();
		}
	}

}
