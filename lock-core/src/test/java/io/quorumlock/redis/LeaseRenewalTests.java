package io.quorumlock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watchdog's timing against scripted rounds and a fake clock (which starts on a
 * multiple of the grid): a renewal is armed at the grid step at or before lease/3, the
 * step at most 1/32 of the wait, so that those due within one step go together and none
 * is late; one less than 160 ms ahead runs at lease/3; an expiry check found early waits
 * for the rest of the validity.
 */
class LeaseRenewalTests {

	private static final Duration LONG = Duration.ofSeconds(30);

	private final EngineParts parts = new EngineParts(3);

	private RedisLease acquire(Duration lease, boolean renew, String key) {
		ResolvedRequest request = EngineParts.request(lease, Duration.ZERO, key);
		if (!renew) {
			request = new ResolvedRequest(request.request(), request.redisKeys(), lease, Duration.ZERO, false,
					request.holdAtMost(), request.holdAtLeast());
		}
		return this.parts.start(request).join();
	}

	private long renewals(String key) {
		return this.parts.voters.calls.stream()
			.filter((call) -> call.startsWith("extend ") && call.endsWith(key)
					|| call.startsWith("renewMany ") && call.contains(key))
			.count();
	}

	/** Clock time in ms since the first lease was granted. */
	private long elapsedMillis(long since) {
		return TimeUnit.NANOSECONDS.toMillis(this.parts.timers.nanoTime() - since);
	}

	@Test
	void renewalsDueWithinOneGridStepGoTogetherAndNoneLate() {
		long t0 = this.parts.timers.nanoTime();
		this.parts.timers.advanceMillis(10);
		RedisLease a = acquire(LONG, true, "a");
		this.parts.timers.advanceMillis(50);
		RedisLease b = acquire(LONG, true, "b");
		// due at 10,010 and 10,060 ms; both on the step at 10,000 ms
		this.parts.timers.advanceMillis(10_000 - 60 - 1);
		assertThat(renewals("lock:{a}") + renewals("lock:{b}")).isZero();
		this.parts.timers.advanceMillis(1);
		assertThat(elapsedMillis(t0)).isEqualTo(10_000);
		assertThat(renewals("lock:{a}")).isOne();
		assertThat(renewals("lock:{b}")).isOne();
		assertThat(a.lost()).isNull();
		assertThat(b.lost()).isNull();
	}

	@Test
	void renewalsDueTogetherGoInOneRoundWhereTheVotersRenewManyKeys() {
		this.parts.voters.renewsMany = true;
		this.parts.timers.advanceMillis(10);
		RedisLease a = acquire(LONG, true, "a");
		this.parts.timers.advanceMillis(50);
		RedisLease b = acquire(LONG, true, "b");
		long grantedB = this.parts.timers.nanoTime();
		this.parts.timers.advanceMillis(10_000 - 60);
		assertThat(this.parts.voters.calls).containsExactly("acquire lock:{a}", "acquire lock:{b}",
				"renewMany lock:{a} lock:{b}");
		assertThat(this.parts.voters.extendedTo).containsExactly("30000", "30000");
		// each validity is measured from the round's start, before either was due
		long start = this.parts.timers.nanoTime();
		assertThat(a.validUntil()).isEqualTo(this.parts.validity.validUntil(start, LONG.toNanos()));
		assertThat(b.validUntil()).isEqualTo(a.validUntil()).isGreaterThan(grantedB + LONG.toNanos() / 2);
		// and again a third of the lease on
		this.parts.timers.advanceMillis(10_000);
		assertThat(this.parts.voters.count("renewMany lock:{a} lock:{b}")).isEqualTo(2);
	}

	@Test
	void renewalIsDueAtItsGridPointOnAClockThatMovesBetweenReads() {
		this.parts.timers.movePerRead(1);
		long t0 = this.parts.timers.nanoTime();
		RedisLease a = acquire(LONG, true, "a");
		// granted at about t0 (the clock starts on the grid): due at t0 + 10 s, the step
		// at or before lease/3, and not a nanosecond later
		this.parts.timers.advanceTo(t0 + TimeUnit.SECONDS.toNanos(10));
		assertThat(renewals("lock:{a}")).isOne();
		assertThat(a.lost()).isNull();
	}

	@Test
	void leasesRenewedInOneRoundShareTheirNextTimer() {
		this.parts.voters.renewsMany = true;
		RedisLease a = acquire(LONG, true, "a");
		RedisLease b = acquire(LONG, true, "b");
		assertThat(this.parts.timers.pending()).as("a timer each once granted").isEqualTo(2);
		this.parts.timers.advanceMillis(10_000);
		assertThat(this.parts.voters.count("renewMany lock:{a} lock:{b}")).isOne();
		assertThat(this.parts.timers.pending()).as("one timer for the round's leases").isOne();
		this.parts.timers.advanceMillis(10_000);
		assertThat(this.parts.voters.count("renewMany lock:{a} lock:{b}")).isEqualTo(2);
		assertThat(this.parts.timers.pending()).isOne();
		assertThat(a.lost()).isNull();
		assertThat(b.lost()).isNull();
	}

	@Test
	void leaseReleasedWhileSharingATimerIsNotRenewedAgain() {
		this.parts.voters.renewsMany = true;
		RedisLease a = acquire(LONG, true, "a");
		RedisLease b = acquire(LONG, true, "b");
		this.parts.timers.advanceMillis(10_000);
		a.release();
		this.parts.timers.advanceMillis(10_000);
		assertThat(renewals("lock:{a}")).as("renewed once, before its release").isOne();
		assertThat(renewals("lock:{b}")).isEqualTo(2);
		assertThat(b.lost()).isNull();
	}

	@Test
	void leaseArmedAgainAfterItsRoundIsTickedByItsOwnTimerOnly() {
		this.parts.voters.renewsMany = true;
		RedisLease a = acquire(LONG, true, "a");
		RedisLease b = acquire(LONG, true, "b");
		this.parts.timers.advanceMillis(10_000);
		long renewedA = renewals("lock:{a}");
		// the lease's check moved (as an extension moves it): armed again, on a timer of
		// its own, while the round's shared timer still names it
		this.parts.watchdog.rearm(a);
		this.parts.timers.runDue();
		assertThat(this.parts.timers.pending()).isEqualTo(2);
		this.parts.timers.advanceMillis(10_000);
		assertThat(renewals("lock:{a}")).isEqualTo(renewedA + 1);
		assertThat(this.parts.voters.calls.get(this.parts.voters.calls.size() - 1).split(" "))
			.as("renewed once in the period, not once for each timer")
			.containsOnlyOnce("lock:{a}");
		assertThat(renewals("lock:{b}")).isEqualTo(2);
		assertThat(a.lost()).isNull();
		assertThat(b.lost()).isNull();
	}

	@Test
	void keyTheQuorumRefusesLosesOnlyItsOwnLeaseInATogetherRound() {
		this.parts.voters.renewsMany = true;
		RedisLease a = acquire(LONG, true, "a");
		RedisLease b = acquire(LONG, true, "b");
		this.parts.voters.thenExtend(3, 0).thenExtend(1, 2);
		this.parts.timers.advanceMillis(10_000);
		assertThat(this.parts.voters.count("renewMany lock:{a} lock:{b}")).isOne();
		assertThat(a.lost()).isNull();
		assertThat(b.lost()).isNotNull();
		assertThat(b.lost().getMessage()).endsWith("renewal extended 1 of 3 nodes, quorum 2");
	}

	@Test
	void renewalWithoutADecidingAnswerLosesTheLeaseAtItsValidityNotBefore() {
		Duration lease = Duration.ofSeconds(3);
		RedisLease a = acquire(lease, true, "a");
		long validUntil = a.validUntil();
		// every renewal round hears one yes and two silent masters: never decided
		this.parts.voters.thenExtend(1, 0).thenExtend(1, 0).thenExtend(1, 0).thenExtend(1, 0);
		this.parts.timers.retryDelayNanos(TimeUnit.MILLISECONDS.toNanos(500));
		this.parts.timers.advanceMillis(1000); // the renewal at lease/3
		assertThat(renewals("lock:{a}")).isOne();
		// retries at 1.5, 2 and 2.5 s; one more would end past the validity (2,968 ms)
		this.parts.timers.advanceMillis(1600);
		assertThat(renewals("lock:{a}")).isEqualTo(4);
		assertThat(a.lost()).isNull();
		this.parts.timers.advanceMillis(TimeUnit.NANOSECONDS.toMillis(validUntil - this.parts.timers.nanoTime()) - 1);
		assertThat(a.lost()).isNull();
		this.parts.timers.advanceMillis(20);
		assertThat(a.lost()).isNotNull();
		assertThat(a.lost().getMessage()).contains("validity ran out while its renewal had no deciding answer");
		assertThat(a.lost().foundByRenewal()).isTrue();
	}

	@Test
	void nearerRenewalGoesOnAFinerStep() {
		long t0 = this.parts.timers.nanoTime();
		this.parts.timers.advanceMillis(10);
		acquire(Duration.ofSeconds(3), true, "a");
		// due at 1,010 ms, 1 s ahead: on the 20 ms step at 1,000 ms
		this.parts.timers.advanceMillis(989);
		assertThat(renewals("lock:{a}")).isZero();
		this.parts.timers.advanceMillis(1);
		assertThat(elapsedMillis(t0)).isEqualTo(1_000);
		assertThat(renewals("lock:{a}")).isOne();
	}

	@Test
	void renewalLessThan32FineTicksAheadRunsAtAThirdOfTheLease() {
		long t0 = this.parts.timers.nanoTime();
		this.parts.timers.advanceMillis(12);
		acquire(Duration.ofMillis(450), true, "a");
		this.parts.timers.advanceMillis(149);
		assertThat(renewals("lock:{a}")).isZero();
		this.parts.timers.advanceMillis(1);
		assertThat(elapsedMillis(t0)).isEqualTo(162);
		assertThat(renewals("lock:{a}")).isOne();
	}

	@Test
	void stepIsTheLongestThatIsAtMostAThirtySecondOfTheWait() {
		assertThat(LeaseWatchdog.step(TimeUnit.SECONDS.toNanos(30))).isEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
		assertThat(LeaseWatchdog.step(TimeUnit.MILLISECONDS.toNanos(3_200)))
			.isEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
		assertThat(LeaseWatchdog.step(TimeUnit.MILLISECONDS.toNanos(3_199)))
			.isEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
		assertThat(LeaseWatchdog.step(TimeUnit.MILLISECONDS.toNanos(639))).isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
		assertThat(LeaseWatchdog.step(TimeUnit.MILLISECONDS.toNanos(160))).isEqualTo(TimeUnit.MILLISECONDS.toNanos(5));
		assertThat(LeaseWatchdog.step(TimeUnit.MILLISECONDS.toNanos(159))).isZero();
		assertThat(LeaseWatchdog.step(-1)).isZero();
	}

	@Test
	void farExpiryCheckFindsTheLeaseLostAtItsValidityNotAGridStepEarly() {
		RedisLease lease = acquire(LONG, false, "a");
		long until = lease.validUntil();
		this.parts.timers.advance(until - this.parts.timers.nanoTime() - 1);
		assertThat(lease.lost()).isNull();
		this.parts.timers.advance(1);
		assertThat(lease.lost()).isNotNull();
		assertThat(lease.lost().getMessage()).contains("expired unrenewed");
	}

}
