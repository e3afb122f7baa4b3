package io.quorumlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Nodes killed and paused (SIGSTOP) under a 3-node quorum. Every test is bounded far
 * below Lettuce's 60 s default command timeout, so a paused node that was waited on would
 * fail it.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class QuorumFaultIntegrationTests {

	/**
	 * The figures of a round short of a quorum with one master left: its yes, or its
	 * silence on a loaded machine (unknown, never a refusal), whichever came.
	 */
	private static final String ONE_OR_NO_VOTE = "(?s).*acquired [01] of 3 nodes, quorum 2.*";

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private QuorumLockEngine locks;

	private QuorumLockEngine otherProcess;

	private String key;

	@BeforeEach
	void start() {
		this.locks = engine();
		this.otherProcess = engine();
		this.key = "k" + UUID.randomUUID();
	}

	@AfterEach
	void close() {
		redis.nodes().forEach((node) -> {
			if (node.isPaused()) {
				node.resume();
			}
		});
		this.locks.close();
		this.otherProcess.close();
	}

	private static QuorumLockEngine engine() {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofMillis(50))
			// the fixture starts its servers fresh: no restart guard here
			.rejoinDelay(Duration.ZERO)
			.build();
	}

	private LockRequest request() {
		return LockRequest.of(this.key).lease(Duration.ofSeconds(10));
	}

	private String redisKey() {
		return "lock:{" + this.key + "}";
	}

	@Test
	void minorityKilledStillGrantsAndExcludes() {
		redis.node(0).kill();
		try (Lease lease = this.locks.acquire(request())) {
			assertThat(lease.isValid()).isTrue();
			assertThat(this.otherProcess.tryAcquire(request())).isEmpty();
		}
		assertThat(this.otherProcess.tryAcquire(request())).hasValueSatisfying(Lease::release);
	}

	@Test
	void minorityPausedStillGrantsAndReleasesWithinTheNodeTimeout() {
		redis.node(1).pause();
		for (int i = 0; i < 5; i++) {
			Lease lease = this.locks.acquire(request());
			assertThat(lease.isValid()).isTrue();
			assertThat(this.otherProcess.tryAcquire(request())).isEmpty();
			lease.release();
		}
		assertThat(redis.node(1).isPaused()).isTrue();
	}

	@Test
	void majorityKilledFailsAtOnceWithTheFigures() {
		redis.node(1).kill();
		redis.node(2).kill();
		assertThatExceptionOfType(QuorumUnavailableException.class).isThrownBy(() -> this.locks.acquire(request()))
			.withMessageContaining("key '" + redisKey() + "'")
			.withMessageMatching(ONE_OR_NO_VOTE)
			.withMessageContaining("ms elapsed")
			.withMessageContaining(redis.node(1).host() + ":" + redis.node(1).port())
			.withMessageContaining(redis.node(2).host() + ":" + redis.node(2).port());
		assertThatExceptionOfType(QuorumUnavailableException.class).isThrownBy(() -> this.locks.tryAcquire(request()));
	}

	@Test
	void majorityKilledFailsAtOnceWhateverTheWait() {
		redis.node(1).kill();
		redis.node(2).kill();
		awaitDown(1, 2);
		// fewer than a quorum of masters connected: once they have been down for longer
		// than a reconnect takes (the retry budget), waiting cannot help, and the call
		// fails long before its 30 s wait (QuorumUnavailable, a sibling of
		// LockNotAcquired; the test's timeout bounds it)
		assertThatExceptionOfType(QuorumUnavailableException.class)
			.isThrownBy(() -> this.locks.acquire(request().waitAtMost(Duration.ofSeconds(30))))
			.withMessageMatching(ONE_OR_NO_VOTE)
			.withMessageContaining("not connected")
			.withMessageContaining("waited at most 30000 ms");
		assertThat(redis.node(0).exists(redisKey())).isFalse();
	}

	@Test
	void callerQueuedLocallyBehindAWaitOnSlowMastersIsToldItQueuedOut() {
		redis.node(1).pause();
		redis.node(2).pause();
		try {
			// the first caller takes the key's local gate and keeps retrying rounds that
			// the paused (connected, slow) majority cannot answer in time; the second
			// queues behind it in this process until its own wait runs out
			CompletableFuture<Lease> first = this.locks.acquireAsync(request().waitAtMost(Duration.ofSeconds(2)));
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> this.locks.acquire(request().waitAtMost(Duration.ofMillis(300))))
				.withMessageContaining("queued behind another caller in this process");
			assertThat(first).failsWithin(Duration.ofSeconds(10))
				.withThrowableOfType(java.util.concurrent.ExecutionException.class)
				.withCauseInstanceOf(QuorumUnavailableException.class)
				.withMessageContaining("no answer in time");
		}
		finally {
			redis.node(1).resume();
			redis.node(2).resume();
		}
	}

	@Test
	void waitingAcquisitionIsGrantedWhenAPausedMajorityResumesWithinTheWait() throws Exception {
		redis.node(1).pause();
		redis.node(2).pause();
		CompletableFuture<Lease> waiting = this.locks.acquireAsync(request().waitAtMost(Duration.ofSeconds(15)));
		redis.node(1).resume();
		redis.node(2).resume();
		try (Lease lease = waiting.get(15, TimeUnit.SECONDS)) {
			assertThat(lease.isValid()).isTrue();
			assertThat(redis.node(1).exists(redisKey()) || redis.node(2).exists(redisKey())).isTrue();
		}
	}

	/** Until the engine has seen these masters' connections drop. */
	private void awaitDown(int... nodes) {
		await().atMost(Duration.ofSeconds(10))
			.until(() -> java.util.Arrays.stream(nodes).noneMatch((i) -> this.locks.nodes().get(i).up()));
	}

	@Test
	void majorityPausedFailsAfterTheNodeTimeout() {
		redis.node(0).pause();
		redis.node(2).pause();
		assertThatExceptionOfType(QuorumUnavailableException.class).isThrownBy(() -> this.locks.acquire(request()))
			.withMessageMatching(ONE_OR_NO_VOTE)
			.withMessageContaining("no answer in time");
	}

	@Test
	void failedQuorumLeavesNoKeyOnTheNodeThatSaidYes() {
		redis.node(1).kill();
		redis.node(2).kill();
		assertThatExceptionOfType(QuorumUnavailableException.class).isThrownBy(() -> this.locks.acquire(request()));
		assertThat(redis.node(0).exists(redisKey())).isFalse();
	}

	@Test
	void grantsAgainWhenTheMajorityComesBack() {
		redis.node(1).kill();
		redis.node(2).kill();
		assertThatExceptionOfType(QuorumUnavailableException.class).isThrownBy(() -> this.locks.acquire(request()));
		redis.node(1).restart();
		redis.node(2).restart();
		await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
			Optional<Lease> lease = this.locks.tryAcquire(request());
			lease.ifPresent(Lease::release);
			return lease.isPresent();
		});
	}

	@Test
	void requestBreakingTheNodeTimeoutIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.locks.acquire(request().lease(Duration.ofMillis(120))))
			.withMessageContaining("lease 120 ms is too short for node timeout 50 ms");
	}

}
