package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Renewal and the fencing round try again while the lease's validity lasts: one round
 * that misses the quorum (a majority briefly silent) does not lose a lease that has most
 * of its validity left.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RetryWhileValidIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final List<LeaseLostException> losses = new CopyOnWriteArrayList<>();

	private final AtomicInteger renewals = new AtomicInteger();

	/** Counted down by the first node error after {@link #pauseMajority()}. */
	private volatile CountDownLatch roundFailed = new CountDownLatch(0);

	private QuorumLockEngine locks;

	private String key;

	@BeforeEach
	void start() {
		this.locks = QuorumLockEngine.builder()
			.nodes(redis.uris())
			// short enough that a silent majority fails a round well within the lease,
			// long
			// enough that a loaded machine's answers to the grant are not "silent"
			.nodeTimeout(Duration.ofMillis(500))
			.rejoinDelay(Duration.ZERO)
			.listener(new LockListener() {
				@Override
				public void onRenewed(LockRequest request, Lease lease) {
					RetryWhileValidIntegrationTests.this.renewals.incrementAndGet();
				}

				@Override
				public void onLost(LockRequest request, Lease lease, LeaseLostException cause) {
					RetryWhileValidIntegrationTests.this.losses.add(cause);
				}

				@Override
				public void onNodeError(String node, Throwable error) {
					RetryWhileValidIntegrationTests.this.roundFailed.countDown();
				}
			})
			.build();
		this.key = "k" + UUID.randomUUID();
	}

	@AfterEach
	void close() {
		redis.nodes().forEach((node) -> node.resume());
		this.locks.close();
	}

	private void pauseMajority() {
		this.roundFailed = new CountDownLatch(1);
		redis.node(1).pause();
		redis.node(2).pause();
	}

	private void resumeMajority() {
		redis.node(1).resume();
		redis.node(2).resume();
	}

	@Test
	void aRenewalRoundThatMissesTheQuorumIsRetriedWhileTheLeaseIsValid() throws Exception {
		Lease lease = this.locks.acquire(LockRequest.of(this.key).lease(Duration.ofSeconds(6)));
		pauseMajority();
		// the renewal due at lease/3 finds two of three nodes silent
		assertThat(this.roundFailed.await(20, TimeUnit.SECONDS)).isTrue();
		resumeMajority();
		int before = this.renewals.get();
		await().atMost(Duration.ofSeconds(20)).until(() -> this.renewals.get() > before || !this.losses.isEmpty());
		assertThat(this.losses).as("one failed round lost the lease").isEmpty();
		assertThat(lease.isValid()).isTrue();
		lease.release();
	}

	@Test
	void aFencingRoundThatMissesTheQuorumIsRetriedWhileTheLeaseIsValid() throws Exception {
		Lease lease = this.locks.acquire(LockRequest.of(this.key).lease(Duration.ofSeconds(6)));
		pauseMajority();
		CompletableFuture<Long> token = CompletableFuture.supplyAsync(lease::fencingToken);
		assertThat(this.roundFailed.await(20, TimeUnit.SECONDS)).isTrue();
		resumeMajority();
		assertThat(token.get(20, TimeUnit.SECONDS)).isPositive();
		assertThat(lease.isValid()).isTrue();
		lease.release();
	}

}
