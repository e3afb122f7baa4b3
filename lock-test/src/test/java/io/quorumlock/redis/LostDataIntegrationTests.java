package io.quorumlock.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
 * The restart guard detects lost data instead of dating it. In each case A holds a lease
 * on the master behind entry 0 and on master 1 (master 2 was held by someone else when A
 * took it, and is free again), then the data behind entry 0 is lost in a way that a
 * server's own account of its uptime does not show: a restart followed by a wall-clock
 * step, an address that starts reaching another, long-running server, a {@code FLUSHALL}.
 * B must not be granted the key on entry 0 and master 2 while A's lease lives. A master
 * that kept its data (append-only file) votes again at once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LostDataIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(6);

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(4);

	/** Entry 0's address: master 0, or whatever it reaches later. */
	private RewritingProxy entry0;

	private String key;

	@BeforeEach
	void start() throws IOException {
		this.entry0 = new RewritingProxy(redis.node(0));
		this.key = "k" + UUID.randomUUID();
	}

	@AfterEach
	void stop() throws IOException {
		this.entry0.close();
	}

	private QuorumLockEngine engine() {
		return QuorumLockEngine.builder()
			.nodes(List.of(this.entry0.uri(), redis.node(1).uri(), redis.node(2).uri()))
			// not a test of timeouts: room for a loaded machine's answers
			.nodeTimeout(Duration.ofSeconds(1))
			.defaults(LockOptions.none().lease(LEASE))
			.rejoinDelay(LEASE)
			.build();
	}

	private LockRequest request() {
		return LockRequest.of(this.key).lease(LEASE).renew(false);
	}

	/** A's lease on entry 0 and master 1 only: master 2 is held by another meanwhile. */
	private Lease holdOnEntry0AndMaster1(QuorumLockEngine a) {
		// the masters start empty: every engine holds them back once, for the guard
		await().atMost(Duration.ofSeconds(30)).until(() -> a.nodes().stream().allMatch(RegistryStatus.Node::voting));
		String redisKey = "lock:{" + this.key + "}";
		redis.node(2).call("SET", redisKey, "someone-else", "PX", "60000");
		Lease first = a.acquire(request());
		redis.node(2).call("DEL", redisKey);
		return first;
	}

	/** B, once it reaches entry 0's server, is refused while A's lease lives. */
	private void refusedWhileHeld(Lease first) {
		try (QuorumLockEngine b = engine()) {
			await().atMost(Duration.ofSeconds(10)).until(() -> b.nodes().get(0).up() && b.nodes().get(2).voting());
			Optional<Lease> second = Optional.empty();
			try {
				second = b.tryAcquire(request());
			}
			catch (LockException refused) {
				assertThat(refused).hasMessageContaining("held back by the restart guard");
			}
			assertThat(first.isValid()).as("A's lease lives throughout").isTrue();
			assertThat(second).as("a second holder of %s while A's lease lives", this.key).isEmpty();
		}
	}

	@Test
	void aMasterRestartedEmptyWhoseClockSteppedForwardIsHeldBack() {
		try (QuorumLockEngine a = engine()) {
			Lease first = holdOnEntry0AndMaster1(a);
			redis.node(0).restart(); // empty
			this.entry0.stepClock(60); // its clock stepped a minute forward at boot
			refusedWhileHeld(first);
		}
	}

	@Test
	void anAddressThatStartsReachingAnotherLongRunningServerIsHeldBack() throws IOException {
		RedisServer other = redis.node(3); // up as long as the others, never held the key
		try (QuorumLockEngine a = engine()) {
			Lease first = holdOnEntry0AndMaster1(a);
			this.entry0.pointTo(other);
			refusedWhileHeld(first);
		}
	}

	@Test
	void aFlushedMasterIsHeldBack() {
		try (QuorumLockEngine a = engine()) {
			Lease first = holdOnEntry0AndMaster1(a);
			redis.node(0).call("FLUSHALL");
			refusedWhileHeld(first);
		}
	}

	@Test
	void aMasterRestartedFromASnapshotOlderThanTheLeaseIsHeldBack() {
		try (QuorumLockEngine a = engine()) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> a.nodes().stream().allMatch(RegistryStatus.Node::voting));
			redis.node(0).call("SAVE"); // the marker is in the snapshot, A's key will not
										// be
			Lease first = holdOnEntry0AndMaster1(a);
			redis.node(0).restart(); // loads the snapshot: its marker, not A's key
			assertThat(redis.node(0).exists("lock:{quorumlock:marker}")).isTrue();
			assertThat(redis.node(0).exists("lock:{" + this.key + "}")).isFalse();
			refusedWhileHeld(first);
		}
		finally {
			redis.node(0).call("FLUSHALL");
			redis.node(0).call("SAVE"); // the next restart of this fixture starts empty
		}
	}

	@Test
	void aMasterThatLostItsDataVotesAgainOnceHeldBackForTheGuard() {
		try (QuorumLockEngine a = engine()) {
			holdOnEntry0AndMaster1(a).release();
			redis.node(0).restart();
			await().atMost(Duration.ofSeconds(10)).until(() -> a.nodes().get(0).up());
			assertThat(a.nodes().get(0).voting()).isFalse();
			assertThat(a.nodes().get(0).heldBackFor()).isPositive();
			await().atMost(LEASE.multipliedBy(3)).until(() -> a.nodes().get(0).voting());
			assertThat(redis.node(0).exists("lock:{quorumlock:marker}")).isTrue();
		}
	}

}
