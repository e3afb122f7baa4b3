package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import io.quorumlock.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link io.quorumlock.Lease#extend(Duration)} against scripted rounds and a fake clock:
 * the validity it grants, the expiry check it moves, the failures that lose the lease,
 * the minimum hold and the release window it changes, and the input it refuses.
 */
class LeaseExtensionTests {

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final Duration LONGER = Duration.ofSeconds(9);

	private final EngineParts parts = new EngineParts(3);

	private static ResolvedRequest request(boolean renew, Duration holdAtLeast, String... keys) {
		List<String> redisKeys = java.util.Arrays.stream(keys).map((key) -> "lock:{" + key + "}").toList();
		return new ResolvedRequest(LockRequest.of(List.of(keys)), redisKeys, LEASE, Duration.ZERO, renew,
				Optional.empty(), holdAtLeast);
	}

	private RedisLease acquire(String... keys) {
		return this.parts.start(request(false, Duration.ZERO, keys)).join();
	}

	private long validityAfter(Duration lease, long start) {
		return this.parts.validity.validUntil(start, lease.toNanos());
	}

	@Test
	void extendsEveryKeyAndMeasuresTheValidityFromTheRoundStart() {
		RedisLease lease = acquire("a", "b");
		this.parts.timers.advanceMillis(1000);
		long start = this.parts.timers.nanoTime();
		assertThat(lease.extend(LONGER)).isTrue();
		assertThat(this.parts.voters.calls).containsExactly("acquire lock:{a}", "acquire lock:{b}", "extend lock:{a}",
				"extend lock:{b}");
		assertThat(this.parts.voters.extendedTo).containsExactly("9000", "9000");
		assertThat(lease.validUntil()).isEqualTo(validityAfter(LONGER, start));
	}

	@Test
	void expiryCheckMovesToTheNewValidity() {
		RedisLease lease = acquire("k");
		assertThat(lease.extend(LONGER)).isTrue();
		this.parts.timers.advanceMillis(LEASE.toMillis() + 1000);
		assertThat(lease.isValid()).isTrue();
		assertThat(lease.lost()).isNull();
		this.parts.timers.advanceMillis(LONGER.toMillis());
		assertThat(lease.lost()).isNotNull();
		assertThat(lease.lost().getMessage()).contains("expired");
	}

	@Test
	void shorterLeaseShortensTheValidityAndTheExpiryCheck() {
		RedisLease lease = acquire("k");
		long start = this.parts.timers.nanoTime();
		assertThat(lease.extend(Duration.ofSeconds(1))).isTrue();
		assertThat(lease.validUntil()).isEqualTo(validityAfter(Duration.ofSeconds(1), start));
		this.parts.timers.advanceMillis(1000);
		assertThat(lease.isValid()).isFalse();
		assertThat(lease.lost()).isNotNull();
	}

	@Test
	void quorumThatRefusesLosesTheLease() {
		RedisLease lease = acquire("k");
		this.parts.voters.thenExtend(1, 2);
		assertThat(lease.extend(LONGER)).isFalse();
		assertThat(lease.isValid()).isFalse();
		assertThat(lease.lost().getMessage())
			.endsWith("lease lost, extension to 9000 ms extended 1 of 3 nodes, quorum 2");
	}

	@Test
	void silenceIsTriedAgainAfterTheRetryDelay() {
		RedisLease lease = acquire("k");
		this.parts.voters.thenExtend(1, 0);
		CompletableFuture<Boolean> extended = lease.extendAsync(LONGER);
		assertThat(extended).isNotDone();
		this.parts.timers.advanceMillis(20);
		long start = this.parts.timers.nanoTime();
		assertThat(extended.join()).isTrue();
		assertThat(this.parts.voters.count("extend lock:{k}")).isEqualTo(2);
		// the validity is measured from the attempt that reached the quorum
		assertThat(lease.validUntil()).isEqualTo(validityAfter(LONGER, start));
		assertThat(lease.lost()).isNull();
	}

	@Test
	void silenceUntilNoRoundFitsInTheValidityLeavesTheLeaseToItsValidity() {
		RedisLease lease = acquire("k");
		long validUntil = lease.validUntil();
		this.parts.timers.retryDelayNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(1500));
		this.parts.voters.thenExtend(1, 0).thenExtend(1, 0);
		CompletableFuture<Boolean> extended = lease.extendAsync(LONGER);
		this.parts.timers.advanceMillis(1500);
		// at 1500 ms another round would end (1500 + 1500 + 50 ms) past the validity
		// (2968 ms), though a retry is left: not extended, but silence is no loss
		assertThat(extended.join()).isFalse();
		assertThat(this.parts.voters.count("extend lock:{k}")).isEqualTo(2);
		assertThat(lease.lost()).isNull();
		assertThat(lease.validUntil()).isEqualTo(validUntil);
		// the lease's own clock ends it
		this.parts.timers.advanceMillis(1500);
		assertThat(lease.lost()).isNotNull();
		assertThat(lease.lost().getMessage()).contains("expired");
	}

	@Test
	void silenceIsTriedAgainTwiceAtMostAndIsNoLoss() {
		RedisLease lease = acquire("k");
		this.parts.voters.thenExtend(0, 0).thenExtend(1, 0).thenExtend(1, 0).thenExtend(3, 0);
		CompletableFuture<Boolean> extended = lease.extendAsync(LONGER);
		this.parts.timers.advanceMillis(20);
		this.parts.timers.advanceMillis(20);
		assertThat(extended.join()).isFalse();
		assertThat(this.parts.voters.count("extend lock:{k}")).isEqualTo(3);
		assertThat(lease.lost()).isNull();
		assertThat(lease.isValid()).isTrue();
	}

	@Test
	void shorterLeaseShortensTheValidityBeforeItsRoundAnswers() {
		RedisLease lease = acquire("k");
		CompletableFuture<Round.Tally> round = this.parts.voters.thenExtendLater();
		long start = this.parts.timers.nanoTime();
		CompletableFuture<Boolean> extended = lease.extendAsync(Duration.ofSeconds(1));
		assertThat(lease.validUntil()).isEqualTo(validityAfter(Duration.ofSeconds(1), start));
		round.complete(this.parts.voters.tally(1, 2));
		assertThat(extended.join()).isFalse();
		assertThat(lease.isValid()).isFalse();
	}

	@Test
	void oneKeyOfSeveralNotExtendedLosesTheLease() {
		RedisLease lease = acquire("a", "b");
		this.parts.voters.thenExtend(3, 0).thenExtend(0, 3);
		assertThat(lease.extend(LONGER)).isFalse();
		assertThat(lease.lost()).isNotNull();
	}

	@Test
	void roundThatOutlastsTheNewLeaseLosesTheLease() {
		RedisLease lease = acquire("k");
		CompletableFuture<Round.Tally> round = this.parts.voters.thenExtendLater();
		CompletableFuture<Boolean> extended = lease.extendAsync(Duration.ofSeconds(1));
		this.parts.timers.advanceMillis(999);
		round.complete(this.parts.voters.tally(3, 0));
		assertThat(extended.join()).isFalse();
		// found expired by the watchdog, moved to the shorter validity, or by the round
		assertThat(lease.lost()).isNotNull();
		assertThat(lease.isValid()).isFalse();
	}

	@Test
	void releasedLeaseIsNotExtended() {
		RedisLease lease = acquire("k");
		lease.release();
		assertThat(lease.extend(LONGER)).isFalse();
		assertThat(this.parts.voters.count("extend lock:{k}")).isZero();
	}

	@Test
	void extensionAskedBehindOneThatLostTheLeaseIsNotSent() {
		RedisLease lease = acquire("k");
		CompletableFuture<Round.Tally> first = this.parts.voters.thenExtendLater();
		CompletableFuture<Boolean> pending = lease.extendAsync(LONGER);
		// asked while the first round runs; by its turn the lease is lost
		CompletableFuture<Boolean> late = lease.extendAsync(LONGER);
		first.complete(this.parts.voters.tally(0, 3));
		assertThat(pending.join()).isFalse();
		assertThat(late.join()).isFalse();
		assertThat(this.parts.voters.count("extend lock:{k}")).isOne();
	}

	@Test
	void extensionsOfOneLeaseRunOneAfterAnother() {
		RedisLease lease = acquire("k");
		CompletableFuture<Round.Tally> first = this.parts.voters.thenExtendLater();
		CompletableFuture<Boolean> longer = lease.extendAsync(LONGER);
		CompletableFuture<Boolean> shorter = lease.extendAsync(Duration.ofSeconds(2));
		assertThat(this.parts.voters.extendedTo).containsExactly("9000");
		long start = this.parts.timers.nanoTime();
		first.complete(this.parts.voters.tally(3, 0));
		assertThat(longer.join()).isTrue();
		assertThat(shorter.join()).isTrue();
		assertThat(this.parts.voters.extendedTo).containsExactly("9000", "2000");
		assertThat(lease.validUntil()).isEqualTo(validityAfter(Duration.ofSeconds(2), start));
	}

	@Test
	void lossFoundByTheWatchdogDuringTheRoundIsNotUndone() {
		RedisLease lease = acquire("k");
		CompletableFuture<Round.Tally> round = this.parts.voters.thenExtendLater();
		CompletableFuture<Boolean> extended = lease.extendAsync(LONGER);
		this.parts.timers.advanceMillis(LEASE.toMillis());
		assertThat(lease.lost()).isNotNull();
		round.complete(this.parts.voters.tally(3, 0));
		assertThat(extended.join()).isFalse();
		assertThat(lease.isValid()).isFalse();
	}

	@Test
	void releaseAfterALongerExtensionIsRedoneForTheLongerLease() {
		RedisLease lease = acquire("k");
		assertThat(lease.extend(LONGER)).isTrue();
		assertThat(lease.extend(Duration.ofSeconds(1))).isTrue();
		lease.release();
		assertThat(this.parts.voters.releaseRedoNanos).isEqualTo(LONGER.toNanos());
	}

	@Test
	void minimumHoldIsKeptByDefaultAndReplacedWhenGiven() {
		RedisLease kept = this.parts.start(request(false, Duration.ofSeconds(2), "a")).join();
		RedisLease replaced = this.parts.start(request(false, Duration.ofSeconds(2), "b")).join();
		RedisLease dropped = this.parts.start(request(false, Duration.ofSeconds(2), "c")).join();
		this.parts.timers.advanceMillis(1000);
		assertThat(kept.extend(LONGER)).isTrue();
		assertThat(replaced.extend(LONGER, Duration.ofSeconds(5))).isTrue();
		assertThat(dropped.extend(LONGER, Duration.ZERO)).isTrue();
		kept.release();
		replaced.release();
		dropped.release();
		assertThat(this.parts.voters.calls).contains("keep lock:{a} 1000", "keep lock:{b} 5000", "release lock:{c}");
	}

	@Test
	void renewingLeaseIsRefused() {
		RedisLease lease = this.parts.start(request(true, Duration.ZERO, "k")).join();
		assertThatIllegalStateException().isThrownBy(() -> lease.extend(LONGER))
			.withMessageContaining("renews itself")
			.withMessageContaining("renew(false)");
		assertThat(this.parts.voters.count("extend lock:{k}")).isZero();
	}

	@Test
	void leaseRenewedWithHoldAtMostIsExtendedByMovingTheEndOfRenewal() {
		ResolvedRequest bounded = new ResolvedRequest(LockRequest.of("k"), List.of("lock:{k}"), LEASE, Duration.ZERO,
				true, Optional.of(LEASE), Duration.ZERO);
		RedisLease lease = this.parts.start(bounded).join();
		long before = lease.renewUntil();
		assertThat(lease.extend(LONGER, Duration.ZERO)).isTrue();
		// one round with the lease the keys were taken with, then renewal goes on longer
		assertThat(this.parts.voters.count("extend lock:{k}")).isOne();
		assertThat(lease.renewUntil() - before).isPositive();
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(LEASE.dividedBy(2)))
			.withMessageContaining("new holdAtMost");
		lease.release();
	}

	@Test
	void badLeaseIsRefusedNamingIt() {
		RedisLease lease = acquire("k");
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(null))
			.withMessage("extend() of lock key 'lock:{k}': lease must be positive, was null");
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(Duration.ZERO))
			.withMessageEndingWith("lease must be positive, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(Duration.ofSeconds(-1)))
			.withMessageEndingWith("lease must be positive, was PT-1S");
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(Duration.ofMillis(100)))
			.withMessageContaining("lease 100 ms is too short for node timeout 50 ms");
		assertThat(lease.extendAsync(Duration.ZERO)).isCompletedExceptionally();
		assertThat(this.parts.voters.count("extend lock:{k}")).isZero();
		assertThat(lease.isValid()).isTrue();
	}

	@Test
	void leaseTheRestartGuardDoesNotCoverIsRefused() {
		RedisLease lease = acquire("k");
		CallerThreads threads = new CallerThreads(Runnable::run);
		Losses losses = new Losses(new Listeners(List.of(), threads), this.parts.gates);
		Extender guarded = new Extender(
				new LeaseWatchdog(this.parts.voters, this.parts.timers, this.parts.validity, losses,
						new Listeners(List.of(), threads)),
				losses, threads, this.parts.timers, Duration.ofMillis(50),
				RestartGuard.of(3, Duration.ofSeconds(5), java.util.Map.of()));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> guarded.extendForCaller(lease, Duration.ofSeconds(6), null))
			.withMessageContaining("lease 6000 ms is longer than the restart guard in force, 5000 ms");
		assertThat(guarded.extendForCaller(lease, Duration.ofSeconds(5), null)).isTrue();
	}

	@Test
	void badMinimumHoldIsRefusedNamingIt() {
		RedisLease lease = acquire("k");
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(LEASE, null))
			.withMessage("holdAtLeast must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(LEASE, Duration.ofSeconds(4)))
			.withMessageContaining("holdAtLeast 4000 ms is longer than the lease 3000 ms");
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(LEASE, Duration.ofSeconds(-1)))
			.withMessageContaining("holdAtLeast must not be negative, was PT-1S");
		assertThat(this.parts.voters.count("extend lock:{k}")).isZero();
	}

	@Test
	void reentryExtendsTheLeaseItReentered() {
		RedisLease lease = acquire("k");
		ReentrantHold hold = new ReentrantHold(lease);
		assertThat(hold.extend(LONGER)).isTrue();
		assertThat(lease.remaining()).isGreaterThan(LEASE);
	}

}
