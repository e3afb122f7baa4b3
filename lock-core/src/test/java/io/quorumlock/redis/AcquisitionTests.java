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
 * The acquisition state machine against scripted rounds and a fake clock: grants,
 * contention and wake-ups, waits and validities running out, the multi-key proof.
 */
class AcquisitionTests {

	private static final Duration LEASE = Duration.ofSeconds(3);

	private final EngineParts parts = new EngineParts(3);

	@Test
	void quorumWithinTheValidityGrantsAndHoldsTheGate() {
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k"));
		RedisLease lease = result.join();
		assertThat(lease.isValid()).isTrue();
		assertThat(this.parts.gates.gate("lock:{k}").lease).isSameAs(lease);
		assertThat(this.parts.voters.calls).containsExactly("acquire lock:{k}");
		lease.release();
		assertThat(this.parts.voters.calls).containsExactly("acquire lock:{k}", "release lock:{k}");
		assertThat(this.parts.gates.size()).isZero();
	}

	@Test
	void contentionSubscribesThenAReleaseWakesTheWaiterBeforeItsBackOff() {
		this.parts.voters.thenAcquire(1, 2);
		CompletableFuture<Round.Tally> second = this.parts.voters.thenAcquireLater();
		CompletableFuture<RedisLease> result = this.parts
			.start(EngineParts.request(LEASE, Duration.ofSeconds(10), "k"));
		assertThat(this.parts.signals.isSubscribed(LockKeys.channel("lock:{k}"))).isTrue();
		second.complete(this.parts.voters.tally(0, 3));
		this.parts.timers.runDue();
		assertThat(result).isNotDone();
		// the holder's release is published: the waiter tries again at once
		this.parts.signals.onMessage(LockKeys.channel("lock:{k}"), "1");
		this.parts.timers.runDue();
		assertThat(result).isCompleted();
		assertThat(this.parts.voters.count("acquire lock:{k}")).isEqualTo(3);
		// the first round's lone yes was undone; the channel is let go once granted
		assertThat(this.parts.voters.count("release lock:{k}")).isOne();
		assertThat(this.parts.signals.subscribed()).isZero();
	}

	@Test
	void aWaiterLosingRoundAfterRoundMarksItsIntentOncePerLongestRetryDelay() {
		this.parts.voters.otherwise = this.parts.voters.tally(0, 3);
		CompletableFuture<RedisLease> result = this.parts
			.start(EngineParts.request(LEASE, Duration.ofSeconds(10), "k"));
		this.parts.timers.runDue();
		// rounds lost within one retry period (20 ms here): woken by releases that a
		// rival won each time
		for (int i = 0; i < 5; i++) {
			this.parts.timers.advanceMillis(3);
			this.parts.signals.onMessage(LockKeys.channel("lock:{k}"), "1");
			this.parts.timers.runDue();
		}
		assertThat(this.parts.voters.count("acquire lock:{k}")).isEqualTo(7);
		assertThat(this.parts.voters.intents).containsExactly("lock:{k}");
		// a longest retry delay after the first mark, the next lost round renews it
		this.parts.timers.advanceMillis(5);
		this.parts.signals.onMessage(LockKeys.channel("lock:{k}"), "1");
		this.parts.timers.runDue();
		assertThat(this.parts.voters.intents).containsExactly("lock:{k}", "lock:{k}");
		result.cancel(false);
	}

	@Test
	void everyRoundDrawsAFreshTokenSoALateUndoOfAnEarlierRoundMatchesNoLaterGrant() {
		// the first round wins one node of three and loses; the second is granted
		this.parts.voters.thenAcquire(1, 2);
		RedisLease lease = this.parts.start(EngineParts.request(LEASE, Duration.ofSeconds(10), "k")).join();
		assertThat(this.parts.voters.tokens).hasSize(3);
		String first = token(0, "acquire lock:{k} ");
		assertThat(token(1, "release lock:{k} ")).as("the undo names the lost round's token").isEqualTo(first);
		String second = token(2, "acquire lock:{k} ");
		assertThat(second).as("the next round has a token of its own").isNotEqualTo(first);
		assertThat(lease.token(0)).as("the key keeps the token of the round that won it").isEqualTo(second);
		// however late the first round's undo reaches a node, it deletes nothing the
		// lease holds there: a compare-and-delete of another token
		lease.release();
		assertThat(this.parts.voters.tokens.get(3)).isEqualTo("release lock:{k} " + second);
	}

	@Test
	void eachKeyOfAMultiKeyLeaseIsProvenAndReleasedWithTheTokenOfTheRoundThatWonIt() {
		this.parts.voters.thenAcquire(3, 0).thenAcquire(1, 2);
		CompletableFuture<RedisLease> result = this.parts
			.start(EngineParts.request(LEASE, Duration.ofSeconds(10), "a", "b"));
		this.parts.timers.advanceMillis(LEASE.toMillis() / 2); // the proof is due
		this.parts.signals.onMessage(LockKeys.channel("lock:{b}"), "1");
		this.parts.timers.runDue();
		RedisLease lease = result.join();
		assertThat(lease.token(0)).isNotEqualTo(lease.token(1));
		assertThat(this.parts.voters.tokens).contains("extend lock:{a} " + lease.token(0));
		lease.release();
		assertThat(this.parts.voters.tokens).contains("release lock:{a} " + lease.token(0),
				"release lock:{b} " + lease.token(1));
	}

	private String token(int call, String prefix) {
		String recorded = this.parts.voters.tokens.get(call);
		assertThat(recorded).startsWith(prefix);
		return recorded.substring(prefix.length());
	}

	@Test
	void aRetryWokenByAReleaseIsSentFromTheSchedulerSoItQueuesBehindTheUndoOfTheRoundBefore() {
		// the first round wins one node of three and loses: undone, then the waiter
		// subscribes and tries again
		this.parts.voters.thenAcquire(1, 2);
		CompletableFuture<Round.Tally> second = this.parts.voters.thenAcquireLater();
		CompletableFuture<RedisLease> result = this.parts
			.start(EngineParts.request(LEASE, Duration.ofSeconds(10), "k"));
		second.complete(this.parts.voters.tally(1, 2));
		this.parts.timers.runDue();
		assertThat(this.parts.voters.calls).containsExactly("acquire lock:{k}", "release lock:{k}", "acquire lock:{k}",
				"release lock:{k}");
		// a release is published: the retry is not sent from the thread that reads the
		// message (an I/O thread) but from the scheduler, behind the undo; its own token
		// would make an overtaken undo harmless anyway
		this.parts.signals.onMessage(LockKeys.channel("lock:{k}"), "1");
		assertThat(this.parts.voters.count("acquire lock:{k}")).isEqualTo(2);
		this.parts.timers.runDue();
		assertThat(this.parts.voters.count("acquire lock:{k}")).isEqualTo(3);
		assertThat(result).isCompleted();
	}

	@Test
	void aSplitVoteIsRetriedAtOnceEvenWithoutAWait() {
		// three contenders took one node each: every one undoes, and retries after a
		// jitter
		this.parts.voters.thenSplit(1, 2);
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k"));
		assertThat(this.parts.voters.calls).containsExactly("acquire lock:{k}", "release lock:{k}");
		assertThat(result).isNotDone();
		// the jitter is at most the shortest retry delay
		this.parts.timers.advanceMillis(20);
		assertThat(result).isCompleted();
		assertThat(this.parts.voters.count("acquire lock:{k}")).isEqualTo(2);
	}

	@Test
	void aSplitVoteThatLastsBeyondItsWindowFailsAsHeldElsewhere() {
		this.parts.voters.otherwise = this.parts.voters.split(1, 2);
		long start = this.parts.timers.nanoTime();
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k"));
		for (int i = 0; i < 100 && !result.isDone(); i++) {
			this.parts.timers.advanceMillis(20);
		}
		assertThatExceptionOfType(CompletionException.class).isThrownBy(result::join)
			.withCauseInstanceOf(LockNotAcquiredException.class)
			.withMessageContaining("held elsewhere");
		// retried, each after a jitter, until two longest retry delays after its start
		assertThat(this.parts.voters.count("acquire lock:{k}")).isGreaterThan(1L);
		assertThat(this.parts.timers.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(40).toNanos());
	}

	@Test
	void aKeyHeldByOneContenderIsNotASplitVote() {
		// the two refusals may be one holder's quorum
		this.parts.voters.thenAcquire(1, 2);
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k"));
		assertThat(result).isCompletedExceptionally();
		assertThat(this.parts.voters.count("acquire lock:{k}")).isOne();
	}

	@Test
	void withoutAQuorumOfConnectedMastersAWaitingRequestFailsAtOnce() {
		this.parts.voters.thenAcquire(1, 0);
		this.parts.voters.quorumPossibleIn = Long.MAX_VALUE; // two of three are down
		CompletableFuture<RedisLease> result = this.parts
			.start(EngineParts.request(LEASE, Duration.ofSeconds(30), "k"));
		assertThatExceptionOfType(CompletionException.class).isThrownBy(result::join)
			.withCauseInstanceOf(QuorumUnavailableException.class);
		assertThat(this.parts.voters.count("acquire lock:{k}")).isOne();
	}

	@Test
	void mastersHeldBackUntilBeforeTheDeadlineAreWaitedFor() {
		this.parts.voters.thenAcquire(1, 0);
		this.parts.voters.quorumPossibleIn = Duration.ofSeconds(2).toNanos();
		CompletableFuture<RedisLease> result = this.parts
			.start(EngineParts.request(LEASE, Duration.ofSeconds(30), "k"));
		assertThat(result).isNotDone();
		this.parts.voters.quorumPossibleIn = 0;
		this.parts.timers.advanceMillis(100);
		assertThat(result).isCompleted();
	}

	@Test
	void mastersHeldBackUntilAfterTheDeadlineFailAtOnce() {
		this.parts.voters.thenAcquire(1, 0);
		this.parts.voters.quorumPossibleIn = Duration.ofSeconds(40).toNanos();
		CompletableFuture<RedisLease> result = this.parts
			.start(EngineParts.request(LEASE, Duration.ofSeconds(30), "k"));
		assertThat(result).isCompletedExceptionally();
	}

	@Test
	void waitRunningOutFailsAsHeldElsewhere() {
		this.parts.voters.otherwise = this.parts.voters.tally(0, 3);
		CompletableFuture<RedisLease> result = this.parts
			.start(EngineParts.request(LEASE, Duration.ofMillis(100), "k"));
		this.parts.timers.advanceMillis(99);
		assertThat(result).isNotDone();
		this.parts.timers.advanceMillis(50);
		assertThatExceptionOfType(CompletionException.class).isThrownBy(result::join)
			.withCauseInstanceOf(LockNotAcquiredException.class)
			.withMessageContaining("not acquired, held elsewhere: acquired 0 of 3 nodes, quorum 2");
		assertThat(this.parts.gates.size()).isZero();
		assertThat(this.parts.signals.subscribed()).isZero();
	}

	@Test
	void quorumGrantedTooLateForTheValidityIsUndone() {
		CompletableFuture<Round.Tally> round = this.parts.voters.thenAcquireLater();
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k"));
		// lease 3000 ms less drift (30 ms + 2 ms): nothing left after 2968 ms
		this.parts.timers.advanceMillis(2968);
		round.complete(this.parts.voters.tally(3, 0));
		assertThatExceptionOfType(CompletionException.class).isThrownBy(result::join)
			.withMessageContaining("validity exhausted by acquisition time");
		assertThat(this.parts.voters.calls).containsExactly("acquire lock:{k}", "release lock:{k}");
	}

	@Test
	void tooFewAnswersFailAsQuorumUnavailable() {
		this.parts.voters.thenAcquire(1, 0);
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k"));
		assertThatExceptionOfType(CompletionException.class).isThrownBy(result::join)
			.withCauseInstanceOf(QuorumUnavailableException.class)
			.withMessageContaining("quorum unavailable: acquired 1 of 3 nodes, quorum 2, 1 answered")
			.withMessageContaining("node1: no answer in time; node2: no answer in time");
	}

	@Test
	void laterKeyTakenAfterAThirdOfTheLeaseProvesTheEarlierOnes() {
		long start = this.parts.timers.nanoTime();
		this.parts.voters.thenAcquire(3, 0);
		CompletableFuture<Round.Tally> onB = this.parts.voters.thenAcquireLater();
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "a", "b"));
		// less than two thirds of a's validity is left when b is granted: prove every key
		this.parts.timers.advanceMillis(1100);
		onB.complete(this.parts.voters.tally(3, 0));
		RedisLease lease = result.join();
		assertThat(this.parts.voters.calls).containsExactly("acquire lock:{a}", "acquire lock:{b}", "extend lock:{a}",
				"extend lock:{b}");
		// valid from the proof's start: the lease starts with most of its validity
		assertThat(lease.validUntil())
			.isEqualTo(this.parts.validity.validUntil(start + Duration.ofMillis(1100).toNanos(), LEASE.toNanos()));
	}

	@Test
	void laterKeyTakenEarlyNeedsNoProof() {
		this.parts.voters.thenAcquire(3, 0);
		CompletableFuture<Round.Tally> onB = this.parts.voters.thenAcquireLater();
		CompletableFuture<RedisLease> result = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "a", "b"));
		this.parts.timers.advanceMillis(900);
		onB.complete(this.parts.voters.tally(3, 0));
		assertThat(result.join().isValid()).isTrue();
		assertThat(this.parts.voters.calls).containsExactly("acquire lock:{a}", "acquire lock:{b}");
	}

	@Test
	void failedProofUndoesEveryKeyAndTakesThemAgainInOrder() {
		this.parts.voters.thenAcquire(3, 0);
		CompletableFuture<Round.Tally> onB = this.parts.voters.thenAcquireLater();
		this.parts.voters.thenExtend(1, 2);
		CompletableFuture<RedisLease> result = this.parts
			.start(EngineParts.request(LEASE, Duration.ofSeconds(10), "a", "b"));
		this.parts.timers.advanceMillis(1100);
		onB.complete(this.parts.voters.tally(3, 0));
		this.parts.timers.runDue();
		assertThat(result.join().isValid()).isTrue();
		assertThat(this.parts.voters.calls).containsExactly("acquire lock:{a}", "acquire lock:{b}", "extend lock:{a}",
				"extend lock:{b}", "release lock:{a}", "release lock:{b}", "acquire lock:{a}", "acquire lock:{b}");
	}

}
