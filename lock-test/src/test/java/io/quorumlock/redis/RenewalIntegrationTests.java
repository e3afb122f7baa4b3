package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.LeaseLostException;
import io.quorumlock.Lease;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Renewal by the watchdog, lease loss (expiry unrenewed, renewal missing the quorum,
 * {@code holdAtMost}), how a release reports a loss, and a clean close.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RenewalIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final AtomicInteger renewals = new AtomicInteger();

	private final List<LeaseLostException> losses = new CopyOnWriteArrayList<>();

	private final CountDownLatch lost = new CountDownLatch(1);

	private final AtomicLong lostAt = new AtomicLong();

	private QuorumLockEngine locks;

	private QuorumLockEngine competitor;

	private String key;

	@BeforeEach
	void start() {
		LockListener listener = new LockListener() {

			@Override
			public void onRenewed(LockRequest request, Lease lease) {
				RenewalIntegrationTests.this.renewals.incrementAndGet();
			}

			@Override
			public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
				RenewalIntegrationTests.this.lostAt.set(System.nanoTime());
				RenewalIntegrationTests.this.losses.add(cause);
				RenewalIntegrationTests.this.lost.countDown();
			}

		};
		this.locks = builder().listener(listener).build();
		this.competitor = builder().build();
		this.key = "k" + UUID.randomUUID();
	}

	@AfterEach
	void close() {
		this.locks.close();
		this.competitor.close();
	}

	private static QuorumLockEngine.Builder builder() {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofMillis(50))
			.rejoinDelay(Duration.ZERO); // fresh fixture servers: no restart guard here
	}

	private LockRequest request(Duration lease) {
		return LockRequest.of(this.key).lease(lease);
	}

	@Test
	void renewedLeaseKeepsExclusivityThroughWorkThreeAndAHalfTimesItsLength() throws Exception {
		Lease lease = this.locks.acquire(request(Duration.ofSeconds(1)).renew(true));
		long workEnds = System.nanoTime() + Duration.ofMillis(3500).toNanos();
		int attempts = 0;
		while (System.nanoTime() < workEnds) {
			// the "work": 3.5 s in steps; a competitor that does not wait fails
			// throughout
			assertThat(this.competitor.tryAcquire(request(Duration.ofSeconds(1)))).isEmpty();
			assertThat(lease.isValid()).isTrue();
			attempts++;
			TimeUnit.MILLISECONDS.sleep(100);
		}
		assertThat(attempts).isGreaterThan(20);
		// every lease/3 = 333 ms
		assertThat(this.renewals.get()).isGreaterThanOrEqualTo(9);
		lease.release(); // no loss to report
		assertThat(this.losses).isEmpty();
		assertThat(this.competitor.tryAcquire(request(Duration.ofSeconds(1)))).hasValueSatisfying(Lease::release);
	}

	@Test
	void unrenewedLeaseIsTakenOverAndItsReleaseReportsTheLoss() throws Exception {
		Lease lease = this.locks.acquire(request(Duration.ofSeconds(1)).renew(false));
		Lease next = this.competitor.acquire(request(Duration.ofSeconds(5)).waitAtMost(Duration.ofSeconds(10)));
		assertThat(next.isValid()).isTrue();
		assertThat(lease.isValid()).isFalse();
		assertThat(this.lost.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(this.losses).singleElement()
			.satisfies((loss) -> assertThat(loss).hasMessageContaining("key 'lock:{" + this.key + "}'")
				.hasMessageContaining("lease lost, expired unrenewed after its lease of 1000 ms"));
		assertThat(this.renewals).hasValue(0);
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::release)
			.withMessageContaining("expired unrenewed");
		// the stale release deleted nothing of the new holder's
		assertThat(next.isValid()).isTrue();
		lease.release(); // idempotent, reports once
		next.release();
	}

	@Test
	void onLeaseLostLogReleasesQuietly() {
		try (QuorumLockEngine quiet = builder().onLeaseLost(OnLeaseLost.LOG).build()) {
			Lease lease = quiet.acquire(request(Duration.ofMillis(300)).renew(false));
			await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid());
			lease.release();
			assertThat(lease.isValid()).isFalse();
		}
	}

	@Test
	void majorityKilledWhileHeldIsDetectedByTheNextRenewal() throws Exception {
		Duration leaseTime = Duration.ofSeconds(3);
		Lease lease = this.locks.acquire(request(leaseTime).renew(true));
		long granted = System.nanoTime();
		redis.node(0).kill();
		redis.node(1).kill();
		assertThat(this.lost.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(lease.isValid()).isFalse();
		assertThat(lease.remaining()).isZero();
		// detected by a renewal round (every lease/3), before the lease would have run
		// out
		assertThat(Duration.ofNanos(this.lostAt.get() - granted)).isLessThan(leaseTime);
		assertThat(this.losses).singleElement()
			.satisfies((loss) -> assertThat(loss).hasMessageContaining("renewal extended 1 of 3 nodes, quorum 2"));
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::release);
	}

	@Test
	void holdAtMostStopsRenewing() throws Exception {
		Lease lease = this.locks.acquire(request(Duration.ofMillis(600)).holdAtMost(Duration.ofMillis(1200)));
		assertThat(this.lost.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.renewals.get()).isGreaterThanOrEqualTo(2);
		assertThat(this.losses).singleElement()
			.satisfies((loss) -> assertThat(loss)
				.hasMessageContaining("expired after renewal stopped at holdAtMost 1200 ms"));
		assertThat(lease.isValid()).isFalse();
		// the key outlives our drift-adjusted validity by a little on the nodes
		assertThat(this.competitor.tryAcquire(request(Duration.ofSeconds(1)).waitAtMost(Duration.ofSeconds(5))))
			.hasValueSatisfying(Lease::release);
	}

	@Test
	void noThreadOrTimerSurvivesClose() throws Exception {
		Set<Long> before = Thread.getAllStackTraces().keySet().stream().map(Thread::getId).collect(Collectors.toSet());
		QuorumLockEngine engine = builder().build();
		Lease held = engine.acquire(request(Duration.ofSeconds(2)));
		held.fencingToken();
		// a waiter subscribes to the release channel: pub/sub connections exist too
		Thread waiter = new Thread(
				() -> engine.tryAcquire(request(Duration.ofSeconds(2)).waitAtMost(Duration.ofMillis(300))));
		waiter.start();
		waiter.join(10_000);
		held.release();
		engine.close();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(
					() -> assertThat(Thread.getAllStackTraces().keySet()).filteredOn((t) -> !before.contains(t.getId()))
						.filteredOn((t) -> t.getName().startsWith("quorumlock") || t.getName().startsWith("lettuce"))
						.isEmpty());
	}

}
