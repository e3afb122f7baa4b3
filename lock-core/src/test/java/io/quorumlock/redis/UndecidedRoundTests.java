package io.quorumlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;

import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.QuorumUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Only an answer decides: a round that the answers left open (masters that did not answer
 * in time might have said yes) is retried within the retry budget even without a wait,
 * and is never reported as held elsewhere; a round whose answers decide is not retried.
 * Against scripted rounds and a fake clock.
 */
class UndecidedRoundTests {

	private static final Duration LEASE = Duration.ofSeconds(3);

	private final EngineParts parts = new EngineParts(3, Duration.ofSeconds(1));

	@Test
	void aRoundShortOfAnswersIsRetriedWithoutAWait() {
		this.parts.voters.thenAcquire(1, 0); // two masters silent
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k"));
		assertThat(result).isNotDone();
		this.parts.timers.advanceMillis(20);
		assertThat(result.join().isValid()).isTrue();
		assertThat(this.parts.voters.count("acquire lock:{k}")).isEqualTo(2);
		// the first round's lone yes was undone, with its own token
		assertThat(this.parts.voters.count("release lock:{k}")).isOne();
	}

	@Test
	void oneYesOneNoAndOneSilentMasterIsNotHeldElsewhere() {
		// the silent master might have said yes: a quorum was still possible
		this.parts.voters.thenAcquire(1, 1);
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k"));
		assertThat(result).isNotDone();
		this.parts.timers.advanceMillis(20);
		assertThat(result.join().isValid()).isTrue();
		assertThat(this.parts.voters.count("acquire lock:{k}")).isEqualTo(2);
	}

	@Test
	void refusalsOfAMajorityDecideAtOnce() {
		this.parts.voters.thenAcquire(0, 2); // two masters answered: held by another
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k"));
		assertThatExceptionOfType(CompletionException.class).isThrownBy(result::join)
			.withCauseExactlyInstanceOf(LockNotAcquiredException.class)
			.withMessageContaining("held elsewhere");
		assertThat(this.parts.voters.count("acquire lock:{k}")).isOne();
	}

	@Test
	void silenceThroughTheWholeBudgetFailsAsUnavailableNamingTheSilentMasters() {
		this.parts.voters.otherwise = this.parts.voters.tally(1, 0);
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k"));
		this.parts.timers.advanceMillis(990);
		assertThat(result).isNotDone();
		this.parts.timers.advanceMillis(30);
		assertThatExceptionOfType(CompletionException.class).isThrownBy(result::join)
			.withCauseExactlyInstanceOf(QuorumUnavailableException.class)
			.withMessageContaining("quorum unavailable: acquired 1 of 3 nodes, quorum 2")
			.withMessageContaining("node1: no answer in time");
		assertThat(this.parts.voters.count("acquire lock:{k}")).isGreaterThan(2);
	}

	@Test
	void mastersDownForLongerThanTheCallCanSpendFailAtOnce() {
		this.parts.voters.thenAcquire(1, 0);
		this.parts.voters.quorumPossibleIn = Long.MAX_VALUE;
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k"));
		assertThatExceptionOfType(CompletionException.class).isThrownBy(result::join)
			.withCauseExactlyInstanceOf(QuorumUnavailableException.class);
		assertThat(this.parts.voters.count("acquire lock:{k}")).isOne();
	}

	@Test
	void aGrantTooLateForItsValidityIsRetriedWithinTheBudget() {
		CompletableFuture<Round.Tally> round = this.parts.voters.thenAcquireLater();
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k"));
		this.parts.timers.advanceMillis(2968); // a stalled client: nothing of the
												// validity left
		round.complete(this.parts.voters.tally(3, 0));
		// past the budget already (a 1 s budget after a zero wait): fails, unavailable
		assertThatExceptionOfType(CompletionException.class).isThrownBy(result::join)
			.withCauseExactlyInstanceOf(QuorumUnavailableException.class)
			.withMessageContaining("validity exhausted by acquisition time");
	}

	@Test
	void aGrantTooLateWithinTheBudgetIsRetried() {
		CompletableFuture<Round.Tally> round = this.parts.voters.thenAcquireLater();
		Duration lease = Duration.ofMillis(300);
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(lease, Duration.ZERO, "k"));
		this.parts.timers.advanceMillis(299);
		round.complete(this.parts.voters.tally(3, 0));
		assertThat(result).isNotDone();
		this.parts.timers.advanceMillis(20);
		assertThat(result.join().isValid()).isTrue();
		assertThat(this.parts.voters.count("acquire lock:{k}")).isEqualTo(2);
	}

	@Test
	void roundsLeftUndecidedGiveTheNextOnesLongerDeadlinesUpToAThirdOfTheLease() {
		this.parts.voters.thenAcquire(0, 0).thenAcquire(0, 0).thenAcquire(0, 0).thenAcquire(0, 0).thenAcquire(0, 0);
		CompletableFuture<RedisLease> result = this.parts
			.start(EngineParts.request(Duration.ofMillis(600), Duration.ZERO, "k"));
		for (int i = 0; i < 6; i++) {
			this.parts.timers.advanceMillis(20);
		}
		assertThat(result.join().isValid()).isTrue();
		// 50 ms, then doubled per undecided round, capped at a third of the 600 ms lease
		assertThat(this.parts.voters.acquireTimeouts).containsExactly(ms(50), ms(100), ms(200), ms(200), ms(200),
				ms(200));
	}

	private static long ms(long millis) {
		return java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(millis);
	}

}
