package io.quorumlock.redis;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.LeaseLostException;
import io.quorumlock.Lease;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import io.quorumlock.redis.node.ServerState;

/**
 * Fencing tokens grow with each holder of a key, across node failures, and let a store
 * refuse the late write of a holder whose lease ran out.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FencingIntegrationTests {

	static QuorumLockEngine engine(RedisServers redis) {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			// not a test of timeouts: room for a loaded machine's answers, below a third
			// of
			// the shortest lease here
			.nodeTimeout(Duration.ofMillis(500))
			// fresh fixture servers; the guard has its own test
			.rejoinDelay(Duration.ZERO)
			.build();
	}

	static long holdAndFence(QuorumLockEngine locks, String key) {
		try (Lease lease = locks.acquire(LockRequest.of(key).lease(Duration.ofSeconds(5)))) {
			long token = lease.fencingToken();
			assertThat(lease.fencingToken()).as("computed once").isEqualTo(token);
			return token;
		}
	}

	@Nested
	class ThreeMasters {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(3);

		private String key;

		@BeforeEach
		void name() {
			this.key = "k" + UUID.randomUUID();
		}

		@Test
		void fiftyHoldersGetStrictlyIncreasingTokensAcrossAMasterKilledAndRestarted() {
			try (QuorumLockEngine locks = engine(redis)) {
				long previous = Long.MIN_VALUE;
				for (int i = 0; i < 50; i++) {
					if (i == 15) {
						redis.node(0).kill();
					}
					if (i == 30) {
						// empty: its counter is gone and re-seeded from its clock
						redis.node(0).restart();
					}
					long token = holdAndFence(locks, this.key);
					assertThat(token).as("holder %d", i).isGreaterThan(previous);
					previous = token;
				}
			}
		}

		@Test
		void tokensGrowAcrossProcessesToo() {
			try (QuorumLockEngine a = engine(redis); QuorumLockEngine b = engine(redis)) {
				long previous = Long.MIN_VALUE;
				for (int i = 0; i < 20; i++) {
					long token = holdAndFence((i % 2 == 0) ? a : b, this.key);
					assertThat(token).isGreaterThan(previous);
					previous = token;
				}
			}
		}

		@Test
		void locksThatNeverAskPayNothing() {
			try (QuorumLockEngine locks = engine(redis)) {
				String fenceKey = "lock:{" + this.key + "}:fence";
				try (Lease lease = locks.acquire(LockRequest.of(this.key).lease(Duration.ofSeconds(5)))) {
					for (RedisServer node : redis.nodes()) {
						assertThat(node.exists(fenceKey)).isFalse();
					}
					long token = lease.fencingToken();
					// seeded from the node clock in microseconds
					assertThat(token).isGreaterThan(1_600_000_000_000_000L);
					// a quorum holds a counter at least the token. The token is returned
					// at a quorum, so the last node's counter may not exist yet, or may
					// be larger once it does: counters only grow, which is safe.
					int atLeastToken = 0;
					for (RedisServer node : redis.nodes()) {
						String counter = node.get(fenceKey);
						if (counter == null) {
							continue;
						}
						atLeastToken += (Long.parseLong(counter) >= token) ? 1 : 0;
						assertThat(node.pttl(fenceKey)).isPositive()
							.isLessThanOrEqualTo(Duration.ofHours(1).toMillis());
					}
					assertThat(atLeastToken).isGreaterThanOrEqualTo(2);
				}
			}
		}

		@Test
		void severalKeysShareOneTokenAboveEveryKeysCounter() {
			try (QuorumLockEngine locks = engine(redis)) {
				long a = holdAndFence(locks, this.key + "a");
				long b = holdAndFence(locks, this.key + "b");
				try (Lease both = locks.acquire(LockRequest.of(java.util.List.of(this.key + "a", this.key + "b"))
					.lease(Duration.ofSeconds(5)))) {
					assertThat(both.fencingToken()).isGreaterThan(Math.max(a, b));
				}
			}
		}

		@Test
		void aLostLeaseGetsNoToken() {
			try (QuorumLockEngine locks = engine(redis)) {
				Lease lease = locks
					.acquire(LockRequest.of(this.key).lease(DistributedLockRegistryContract.SHORT_LEASE).renew(false));
				await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid());
				assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::fencingToken);
			}
		}

		@Test
		void aPausedHolderHasTheSmallerTokenAndTheFencedStoreRejectsItsLateWrite() throws SQLException {
			try (QuorumLockEngine first = engine(redis);
					QuorumLockEngine second = engine(redis);
					Connection db = DriverManager.getConnection("jdbc:h2:mem:fence-" + this.key)) {
				try (Statement ddl = db.createStatement()) {
					ddl.execute("CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY, status VARCHAR(32), "
							+ "last_fencing_token BIGINT NOT NULL)");
					ddl.execute("INSERT INTO orders VALUES ('42', 'NEW', 0)");
				}
				Lease slow = first
					.acquire(LockRequest.of(this.key).lease(DistributedLockRegistryContract.SHORT_LEASE).renew(false));
				long slowToken = slow.fencingToken();
				// the first holder "pauses" (a GC, a stalled VM) past its lease; a second
				// takes over
				await().atMost(Duration.ofSeconds(5)).until(() -> !slow.isValid());
				// the masters keep the key a little past the holder's own validity (its
				// drift
				// allowance): wait for it rather than read "held" as a failure
				Lease fast = second
					.acquire(LockRequest.of(this.key).lease(Duration.ofSeconds(5)).waitAtMost(Duration.ofSeconds(5)));
				long fastToken = fast.fencingToken();
				assertThat(fastToken).isGreaterThan(slowToken);
				assertThat(fencedWrite(db, "PAID_BY_SECOND", fastToken)).isEqualTo(1);
				fast.release();
				// the first holder wakes up and writes: the store refuses the stale token
				assertThat(fencedWrite(db, "PAID_BY_FIRST", slowToken)).isZero();
				try (ResultSet rs = db.createStatement().executeQuery("SELECT status FROM orders WHERE id = '42'")) {
					assertThat(rs.next()).isTrue();
					assertThat(rs.getString(1)).isEqualTo("PAID_BY_SECOND");
				}
			}
		}

		/**
		 * A fenced write, as Kleppmann describes it: only a token above the last one
		 * applied may write.
		 */
		private int fencedWrite(Connection db, String status, long token) throws SQLException {
			try (PreparedStatement update = db.prepareStatement(
					"UPDATE orders SET status = ?, last_fencing_token = ? WHERE id = '42' AND last_fencing_token < ?")) {
				update.setString(1, status);
				update.setLong(2, token);
				update.setLong(3, token);
				return update.executeUpdate();
			}
		}

		@Test
		void aNodeHeldBackByTheRestartGuardTakesNoPartInFencing() {
			// every node must have been up past the rejoin delay before the grant
			await().atMost(Duration.ofSeconds(10)).until(() -> redis.nodes().stream().allMatch((node) -> {
				String info = String.valueOf(node.call("INFO", "server"));
				return ServerState.parseUptimeSeconds(info) >= 4;
			}));
			try (QuorumLockEngine locks = QuorumLockEngine.builder()
				.nodes(redis.uris())
				.nodeTimeout(Duration.ofMillis(500))
				.defaults(LockOptions.none().lease(Duration.ofSeconds(3)))
				.rejoinDelay(Duration.ofSeconds(3))
				.build()) {
				Lease lease = await().atMost(Duration.ofSeconds(10))
					.ignoreExceptions()
					.until(() -> locks.tryAcquire(LockRequest.of(this.key)), java.util.Optional::isPresent)
					.orElseThrow();
				redis.node(2).restart();
				await().atMost(Duration.ofSeconds(5)).until(() -> redis.node(2).isRunning());
				long token = lease.fencingToken();
				assertThat(token).isPositive();
				assertThat(redis.node(2).exists("lock:{" + this.key + "}:fence")).isFalse();
				assertThat(redis.node(0).exists("lock:{" + this.key + "}:fence")).isTrue();
				lease.release();
			}
		}

	}

	@Nested
	class SingleNode {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(1);

		@Test
		void fiftyHoldersGetStrictlyIncreasingTokensAcrossARestart() {
			String key = "k" + UUID.randomUUID();
			try (QuorumLockEngine locks = engine(redis)) {
				long previous = Long.MIN_VALUE;
				for (int i = 0; i < 50; i++) {
					if (i == 25) {
						redis.node(0).restart();
						await().atMost(Duration.ofSeconds(10))
							.ignoreExceptions()
							.until(() -> locks.tryAcquire(LockRequest.of(key + "-probe")).map((l) -> {
								l.release();
								return true;
							}).orElse(false));
					}
					long token = holdAndFence(locks, key);
					assertThat(token).as("holder %d", i).isGreaterThan(previous);
					previous = token;
				}
			}
		}

		@Test
		void aCounterThatCameBackOlderThanItsTokensIsRaisedToTheClock() {
			String key = "k" + UUID.randomUUID();
			try (QuorumLockEngine locks = engine(redis)) {
				long first = holdAndFence(locks, key);
				// older data in place of the counter (a snapshot restored, a promoted
				// replica that lagged): present, but behind the token just issued
				redis.node(0).call("SET", "lock:{" + key + "}:fence", "5");
				assertThat(holdAndFence(locks, key)).isGreaterThan(first);
			}
		}

	}

}
