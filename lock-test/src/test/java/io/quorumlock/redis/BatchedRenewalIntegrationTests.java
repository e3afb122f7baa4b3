package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The watchdog renews the leases due on a node together, one {@code EVALSHA} per node per
 * batch, and each lease still counts its own quorum: a key another token holds on one
 * node is not extended there, a key gone from a majority loses only its own lease, and a
 * node killed or paused costs no lease. Counts, never times: the machine may be loaded.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BatchedRenewalIntegrationTests {

	/** A node timeout no answer of a loaded machine's loopback Redis outlasts. */
	private static final Duration NODE_TIMEOUT = Duration.ofSeconds(1);

	/** Renewed every lease/3, which fits more than a node timeout. */
	private static final Duration LEASE = NODE_TIMEOUT.multipliedBy(4);

	private static final Duration AT_MOST = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final AtomicInteger renewals = new AtomicInteger();

	private final List<String> lost = new CopyOnWriteArrayList<>();

	private final List<QuorumLockEngine> engines = new ArrayList<>();

	private final String prefix = "b" + UUID.randomUUID() + ":";

	private final LockListener listener = new LockListener() {

		@Override
		public void onRenewed(LockRequest request, Lease lease) {
			BatchedRenewalIntegrationTests.this.renewals.incrementAndGet();
		}

		@Override
		public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
			BatchedRenewalIntegrationTests.this.lost.add(lease.keys().get(0));
		}

	};

	@BeforeEach
	@AfterEach
	void resume() {
		for (int i = 0; i < 3; i++) {
			redis.node(i).resume();
		}
	}

	@AfterEach
	void close() {
		this.engines.forEach(QuorumLockEngine::close);
	}

	private QuorumLockEngine engine(int masters) {
		QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris().subList(0, masters))
			.nodeTimeout(NODE_TIMEOUT)
			.rejoinDelay(Duration.ZERO) // fresh fixture servers: no restart guard here
			.listener(this.listener)
			.build();
		this.engines.add(engine);
		return engine;
	}

	/**
	 * {@code count} renewing leases, asked for all at once so that they fall due
	 * together.
	 */
	private List<Lease> hold(QuorumLockEngine engine, int count) {
		List<CompletableFuture<Lease>> grants = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			grants
				.add(engine.acquireAsync(LockRequest.of(this.prefix + i).lease(LEASE).renew(true).waitAtMost(AT_MOST)));
		}
		return grants.stream().map(CompletableFuture::join).toList();
	}

	private String redisKey(int i) {
		return "lock:{" + this.prefix + i + "}";
	}

	/** Wait until {@code more} renewals beyond those counted now have been made. */
	private void awaitRenewals(int more) {
		int target = this.renewals.get() + more;
		await().atMost(AT_MOST).until(() -> this.renewals.get() >= target);
	}

	private static long evalshaCalls(RedisServer server) {
		String stats = (String) server.call("INFO", "commandstats");
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith("cmdstat_evalsha:")) {
				String calls = line.substring(line.indexOf("calls=") + 6);
				return Long.parseLong(calls.substring(0, calls.indexOf(',')));
			}
		}
		return 0;
	}

	@ParameterizedTest(name = "{0} master(s)")
	@ValueSource(ints = { 1, 3 })
	void manyLeasesRenewInFarFewerScriptCallsThanRenewals(int masters) {
		int count = 200;
		List<Lease> leases = hold(engine(masters), count);
		awaitRenewals(count); // the watchdog is running for every lease
		long[] before = new long[masters];
		for (int n = 0; n < masters; n++) {
			before[n] = evalshaCalls(redis.node(n));
		}
		int renewedBefore = this.renewals.get();
		awaitRenewals(2 * count);
		int renewed = this.renewals.get() - renewedBefore;
		for (int n = 0; n < masters; n++) {
			long calls = evalshaCalls(redis.node(n)) - before[n];
			assertThat(calls).as("EVALSHA calls at master %d for %d renewals", n, renewed)
				.isPositive()
				.isLessThan(renewed / 4);
		}
		assertThat(this.lost).isEmpty();
		assertThat(leases).allMatch(Lease::isValid);
		// granted and renewed at a quorum: a master whose SET came late may not hold
		// every
		// key, so each key is counted on a quorum of the masters, not on one of them
		int quorum = masters / 2 + 1;
		for (int i = 0; i < count; i++) {
			String redisKey = redisKey(i);
			assertThat(redis.nodes().subList(0, masters).stream().filter((node) -> node.pttl(redisKey) > 0).count())
				.as(redisKey)
				.isGreaterThanOrEqualTo(quorum);
		}
		leases.forEach(Lease::release);
	}

	@Test
	void keyAnotherTokenHoldsOnOneNodeIsNotExtendedThereAndItsLeaseRenewsOnTheOthers() {
		List<Lease> leases = hold(engine(3), 20);
		String taken = redisKey(7);
		redis.node(0).call("SET", taken, "intruder", "PX", "20000");
		awaitRenewals(3 * 20);
		assertThat(this.lost).isEmpty();
		assertThat(leases).allMatch(Lease::isValid);
		assertThat(redis.node(0).get(taken)).isEqualTo("intruder");
		assertThat(redis.node(0).pttl(taken)).as("the batch left the intruder's TTL alone")
			.isGreaterThan(LEASE.toMillis());
		for (int n = 1; n < 3; n++) {
			assertThat(redis.node(n).get(taken)).isNotEqualTo("intruder");
		}
		leases.forEach(Lease::release);
	}

	@Test
	void keyGoneFromAMajorityLosesOnlyItsOwnLease() {
		List<Lease> leases = hold(engine(3), 20);
		String gone = redisKey(7);
		redis.node(0).call("DEL", gone);
		redis.node(1).call("DEL", gone);
		await().atMost(AT_MOST).until(() -> !this.lost.isEmpty());
		awaitRenewals(3 * 19);
		assertThat(this.lost).containsExactly(this.prefix + 7);
		for (int i = 0; i < leases.size(); i++) {
			assertThat(leases.get(i).isValid()).as(redisKey(i)).isEqualTo(i != 7);
		}
		for (int i = 0; i < leases.size(); i++) {
			if (i != 7) {
				leases.get(i).release();
			}
		}
	}

	@Test
	void nodeKilledWhileRenewingCostsNoLease() {
		List<Lease> leases = hold(engine(3), 100);
		awaitRenewals(50); // renewals in flight
		redis.node(2).kill();
		awaitRenewals(3 * 100);
		assertThat(this.lost).isEmpty();
		assertThat(leases).allMatch(Lease::isValid);
		leases.forEach(Lease::release);
	}

	@Test
	void nodePausedWhileRenewingCostsNoLease() {
		List<Lease> leases = hold(engine(3), 100);
		awaitRenewals(50);
		redis.node(1).pause();
		awaitRenewals(3 * 100);
		assertThat(this.lost).isEmpty();
		assertThat(leases).allMatch(Lease::isValid);
		redis.node(1).resume();
		leases.forEach(Lease::release);
	}

}
