package io.quorumlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockException;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A master whose memory limit and eviction policy can drop lock keys (which have a TTL)
 * under pressure, and so grant a held lock again, does not vote in quorum mode and
 * refuses grants in single mode, unless the operator accepts it; under the restart guard,
 * once it stops evicting it is held back like a master that lost its data.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EvictingMasterIntegrationTests {

	/** The lease, and the restart guard of the guarded engines. */
	private static final Duration LEASE = Duration.ofSeconds(8);

	private static final String FILLER = "x".repeat(64 * 1024);

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	@AfterEach
	void noLimit() {
		for (int i = 0; i < 3; i++) {
			redis.node(i).call("CONFIG", "SET", "maxmemory", "0");
			redis.node(i).call("CONFIG", "SET", "maxmemory-policy", "noeviction");
			for (int f = 0; f < 500; f++) {
				redis.node(i).call("UNLINK", "filler:" + f);
			}
		}
	}

	private static void evicting(int node) {
		redis.node(node).call("CONFIG", "SET", "maxmemory", "100mb");
		redis.node(node).call("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
	}

	private static QuorumLockEngine.Builder quorum() {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			.rejoinDelay(Duration.ZERO)
			.nodeTimeout(Duration.ofSeconds(1)); // room for a loaded machine's answers
	}

	@Test
	void anEvictingMasterDoesNotVoteInQuorumMode() {
		evicting(0);
		try (QuorumLockEngine engine = quorum().build()) {
			await().atMost(Duration.ofSeconds(10)).until(() -> engine.nodes().get(1).voting());
			RegistryStatus.Node node0 = engine.nodes().get(0);
			assertThat(node0.up()).isTrue();
			assertThat(node0.voting()).isFalse();
			assertThat(node0.state()).isEqualTo(RegistryStatus.NodeState.EVICTING);
			assertThat(node0.lastError()).startsWith("evicting: maxmemory-policy volatile-lru");
			// the two others still make a quorum
			engine.acquire(LockRequest.of("k" + UUID.randomUUID())).release();
			evicting(1);
			await().atMost(Duration.ofSeconds(15)).until(() -> !engine.nodes().get(1).voting());
			assertThatExceptionOfType(LockException.class)
				.isThrownBy(() -> engine.acquire(LockRequest.of("k" + UUID.randomUUID())))
				.withMessageContaining("evicting: maxmemory-policy volatile-lru")
				.withMessageContaining("quorumlock.allow-evicting-masters");
		}
	}

	private static QuorumLockEngine guarded() {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			.rejoinDelay(LEASE)
			.nodeTimeout(Duration.ofSeconds(1)) // room for a loaded machine's answers
			.defaults(LockOptions.none().lease(LEASE))
			.build();
	}

	/**
	 * A's lease on masters 0 and 1 only (master 2 is held by another meanwhile), so that
	 * master 0 losing it leaves A without a majority of keys.
	 */
	private static Lease holdOnMasters0And1(QuorumLockEngine a, String key) {
		// the masters start empty: every engine holds them back once, for the guard
		await().atMost(Duration.ofSeconds(30)).until(() -> a.nodes().stream().allMatch(RegistryStatus.Node::voting));
		redis.node(2).call("SET", "lock:{" + key + "}", "someone-else", "PX", "60000");
		Lease first = a.acquire(LockRequest.of(key).lease(LEASE).renew(false));
		redis.node(2).call("DEL", "lock:{" + key + "}");
		return first;
	}

	/**
	 * Memory pressure on master 0 under {@code volatile-ttl}: a limit just above what it
	 * uses, filler with a long TTL written until the lock key, whose TTL is the shortest,
	 * is evicted.
	 */
	private static void evictLockKey(String key) {
		RedisServer node = redis.node(0);
		String info = (String) node.call("INFO", "memory");
		long used = Long.parseLong(info.lines()
			.filter((line) -> line.startsWith("used_memory:"))
			.findFirst()
			.orElseThrow()
			.substring("used_memory:".length())
			.trim());
		node.call("CONFIG", "SET", "maxmemory", Long.toString(used + 512 * 1024));
		node.call("CONFIG", "SET", "maxmemory-policy", "volatile-ttl");
		for (int f = 0; f < 500 && node.exists("lock:{" + key + "}"); f++) {
			node.call("SET", "filler:" + f, FILLER, "EX", "3600");
		}
		assertThat(node.exists("lock:{" + key + "}")).as("the lock key evicted").isFalse();
	}

	private static void noEviction(int node) {
		redis.node(node).call("CONFIG", "SET", "maxmemory-policy", "noeviction");
		redis.node(node).call("CONFIG", "SET", "maxmemory", "0");
	}

	/** B, on masters 0 (which evicted A's key) and 2, must not get A's key. */
	private static void refusedWhileHeld(QuorumLockEngine b, Lease first, String key) {
		Optional<Lease> second = Optional.empty();
		try {
			second = b.tryAcquire(LockRequest.of(key).lease(LEASE).renew(false));
		}
		catch (LockException refused) {
			assertThat(refused).hasMessageContaining("held back by the restart guard");
		}
		assertThat(first.isValid()).as("A's lease lives throughout").isTrue();
		assertThat(second).as("a second holder of %s while A's lease lives", key).isEmpty();
	}

	@Test
	void aMasterThatStopsEvictingIsHeldBackBeforeItVotesAgain() {
		String key = "k" + UUID.randomUUID();
		try (QuorumLockEngine a = guarded(); QuorumLockEngine b = guarded()) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> b.nodes().stream().allMatch(RegistryStatus.Node::voting));
			Lease first = holdOnMasters0And1(a, key);
			evictLockKey(key);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> b.nodes().get(0).state() == RegistryStatus.NodeState.EVICTING);
			noEviction(0);
			// B reads the master again: it no longer evicts, but lacks A's key
			await().atMost(Duration.ofSeconds(5))
				.until(() -> b.nodes().get(0).state() != RegistryStatus.NodeState.EVICTING);
			refusedWhileHeld(b, first, key);
			assertThat(b.nodes().get(0).lastError()).contains("evicted keys");
			first.release();
			// and it votes again once held back for the guard
			await().atMost(LEASE.multipliedBy(3)).until(() -> b.nodes().get(0).voting());
		}
	}

	@Test
	void evictionsBetweenTwoReadsOfThePolicyHoldTheMasterBack() {
		String key = "k" + UUID.randomUUID();
		try (QuorumLockEngine a = guarded(); QuorumLockEngine b = guarded()) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> b.nodes().stream().allMatch(RegistryStatus.Node::voting));
			Lease first = holdOnMasters0And1(a, key);
			// the policy set and reset at once: the engines may never read it, but the
			// server counts what it evicted
			evictLockKey(key);
			noEviction(0);
			await().atMost(Duration.ofSeconds(5)).until(() -> !b.nodes().get(0).voting());
			refusedWhileHeld(b, first, key);
		}
	}

	@Test
	void anEvictingMasterVotesWhenTheOperatorAcceptsIt() {
		evicting(0);
		try (QuorumLockEngine engine = quorum().allowEvictingMasters(true).build()) {
			await().atMost(Duration.ofSeconds(10)).until(() -> engine.nodes().get(0).voting());
		}
	}

	@Test
	void singleModeOnAnEvictingMasterRefusesGrantsSayingWhy() {
		evicting(0);
		try (QuorumLockEngine engine = QuorumLockEngine.builder().nodes(redis.node(0).uri()).build()) {
			await().atMost(Duration.ofSeconds(10)).until(() -> engine.nodes().get(0).up());
			assertThatExceptionOfType(LockException.class)
				.isThrownBy(() -> engine.acquire(LockRequest.of("k" + UUID.randomUUID())))
				.withMessageContaining("maxmemory-policy volatile-lru");
			redis.node(0).call("CONFIG", "SET", "maxmemory-policy", "noeviction");
			// read again now and then while it votes not: grants resume
			await().atMost(Duration.ofSeconds(10))
				.ignoreExceptions()
				.untilAsserted(() -> engine.acquire(LockRequest.of("k" + UUID.randomUUID())).release());
		}
	}

	@Test
	void leasesSurviveAnEvictingMasterBeingLeftOut() {
		evicting(2);
		try (QuorumLockEngine engine = quorum().build()) {
			await().atMost(Duration.ofSeconds(10)).until(() -> engine.nodes().get(0).voting());
			Lease lease = engine.acquire(LockRequest.of("k" + UUID.randomUUID()).lease(LEASE));
			assertThat(lease.isValid()).isTrue();
			lease.release();
		}
	}

}
