package io.quorumlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;

import io.quorumlock.LeaseLostException;
import io.quorumlock.LockNotAcquiredException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A lost lease leaves the local gates of its keys at its loss, not at its release: the
 * next caller of the process competes for them as a caller of another process would,
 * never while the lease is still valid; the old lease's release still reports the loss
 * and deletes only its own token.
 */
class LostLeaseGateTests {

	private static final Duration LEASE = Duration.ofSeconds(1);

	private final EngineParts parts = new EngineParts(3);

	private static ResolvedRequest unrenewed(Duration waitAtMost) {
		ResolvedRequest request = EngineParts.request(LEASE, waitAtMost, "k");
		return new ResolvedRequest(request.request(), request.redisKeys(), LEASE, waitAtMost, false,
				request.holdAtMost(), request.holdAtLeast());
	}

	private String tokenOf(RedisLease lease) {
		return lease.token(0);
	}

	@Test
	void nextCallerOfTheProcessCompetesOnceAnUnreleasedLeaseRunsOut() {
		RedisLease stale = this.parts.start(unrenewed(Duration.ZERO)).join();
		CompletableFuture<RedisLease> next = this.parts.start(unrenewed(Duration.ofSeconds(5)));
		this.parts.timers.advanceTo(stale.validUntil() - 1);
		assertThat(next).as("queued while the first lease is valid").isNotDone();
		assertThat(this.parts.voters.count("acquire lock:{k}")).as("no second round while it is valid").isOne();
		this.parts.timers.advanceTo(stale.validUntil() + 1);
		assertThat(stale.lost()).isNotNull();
		assertThat(next).as("granted once the first lease ran out, without its release").isCompleted();
		RedisLease newer = next.join();
		assertThat(newer.isValid()).isTrue();
		assertThat(this.parts.voters.count("acquire lock:{k}")).isEqualTo(2);
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(stale::release)
			.withMessageContaining("expired unrenewed after its lease of 1000 ms");
		assertThat(this.parts.voters.tokens).contains("release lock:{k} " + tokenOf(stale))
			.doesNotContain("release lock:{k} " + tokenOf(newer));
		// the old release left nothing of the newer holder's: its gate is still taken
		CompletableFuture<RedisLease> third = this.parts.start(unrenewed(Duration.ZERO));
		assertThatExceptionOfType(CompletionException.class).isThrownBy(third::join)
			.withCauseInstanceOf(LockNotAcquiredException.class)
			.withMessageContaining("held by another caller in this process");
		assertThat(newer.isValid()).isTrue();
		newer.release();
		assertThat(this.parts.gates.size()).isZero();
		assertThat(this.parts.gates.lostUnreleased()).isEmpty();
	}

	@Test
	void aLeaseTheMastersAnsweredGoneFreesItsGateBeforeItsValidityEnds() {
		RedisLease lost = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k")).join();
		CompletableFuture<RedisLease> next = this.parts.start(unrenewed(Duration.ofSeconds(5)));
		this.parts.voters.thenExtend(0, 3);
		this.parts.timers.advanceMillis(LEASE.toMillis() / 3);
		assertThat(lost.lost()).as("a majority answered it gone").isNotNull();
		assertThat(this.parts.timers.nanoTime() - lost.validUntil()).as("before its validity ran out").isNegative();
		assertThat(next).isCompleted();
		assertThat(next.join().isValid()).isTrue();
		assertThat(this.parts.gates.lostUnreleased()).containsExactly(lost);
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lost::release);
		assertThat(this.parts.gates.lostUnreleased()).isEmpty();
		assertThat(this.parts.gates.gate("lock:{k}").lease).isSameAs(next.join());
	}

	@Test
	void aLeaseWhoseRenewalHasNoAnswerKeepsItsGateUntilItsValidityEnds() {
		RedisLease slow = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k")).join();
		CompletableFuture<RedisLease> next = this.parts.start(unrenewed(Duration.ofSeconds(5)));
		// no master answers any renewal
		for (int i = 0; i < 100; i++) {
			this.parts.voters.thenExtend(0, 0);
		}
		this.parts.timers.advanceTo(slow.validUntil() - 1);
		assertThat(slow.lost()).isNull();
		assertThat(next).as("slowness is not absence: still queued").isNotDone();
		this.parts.timers.advanceTo(slow.validUntil() + 1);
		assertThat(slow.lost()).isNotNull();
		assertThat(next).isCompleted();
		next.join().release();
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(slow::release);
		assertThat(this.parts.gates.size()).isZero();
	}

}
