package io.quorumlock.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.quorumlock.CurrentLease;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * {@link Lease#checkValid()}: a cheap check a long method calls in its loop, which throws
 * once the lease is lost (by its renewal, or its validity running out) or released, with
 * the loss's own words.
 */
class LeaseCheckTests {

	private static final Duration LEASE = Duration.ofSeconds(1);

	private final EngineParts parts = new EngineParts(3);

	private RedisLease unrenewed() {
		ResolvedRequest request = EngineParts.request(LEASE, Duration.ZERO, "k");
		return this.parts
			.start(new ResolvedRequest(request.request(), request.redisKeys(), LEASE, Duration.ZERO, false,
					request.holdAtMost(), request.holdAtLeast()))
			.join();
	}

	@Test
	void passesWhileValidAndThrowsOnceTheValidityRanOut() {
		RedisLease lease = unrenewed();
		this.parts.timers.advanceTo(lease.validUntil() - 1);
		assertThatNoException().isThrownBy(lease::checkValid);
		this.parts.timers.advanceTo(lease.validUntil() + 1);
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::checkValid)
			.withMessageContaining("lease lost, expired unrenewed after its lease of 1000 ms")
			.withCauseInstanceOf(LeaseLostException.class)
			.matches((lost) -> !lost.foundByRenewal());
	}

	@Test
	void throwsOnceARenewalFoundTheLeaseGone() {
		RedisLease lease = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "k")).join();
		this.parts.voters.thenExtend(0, 3);
		this.parts.timers.advanceMillis(LEASE.toMillis() / 3);
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::checkValid)
			.withMessageContaining("lease lost");
	}

	@Test
	void throwsOnceReleasedAndForAReleasedHold() {
		RedisLease lease = unrenewed();
		ReentrantHold hold = new ReentrantHold(lease);
		assertThatNoException().isThrownBy(hold::checkValid);
		hold.release();
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(hold::checkValid)
			.withMessageContaining("this hold was released");
		assertThatNoException().isThrownBy(lease::checkValid);
		lease.release();
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::checkValid)
			.withMessageContaining("lease already released");
	}

	@Test
	void currentLeaseChecksTheInnermostLease() {
		assertThatIllegalStateException().isThrownBy(CurrentLease::checkValid);
		RedisLease lease = unrenewed();
		try (CurrentLease.Scope scope = CurrentLease.bind(lease)) {
			assertThatNoException().isThrownBy(CurrentLease::checkValid);
			this.parts.timers.advanceTo(lease.validUntil() + 1);
			assertThatExceptionOfType(LeaseLostException.class).isThrownBy(CurrentLease::checkValid);
		}
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::release);
	}

	@Test
	void whenLostCompletesWithTheLossAndNeverForALeaseReleasedWhileHeld() {
		RedisLease lost = unrenewed();
		java.util.concurrent.CompletableFuture<LeaseLostException> early = lost.whenLost().toCompletableFuture();
		assertThat(early).isNotDone();
		this.parts.timers.advanceTo(lost.validUntil() + 1);
		assertThat(early).isCompletedWithValue(lost.lost());
		assertThat(lost.whenLost().toCompletableFuture()).as("asked for after the loss")
			.isCompletedWithValue(lost.lost());
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lost::release);
		RedisLease released = this.parts.start(EngineParts.request(LEASE, Duration.ZERO, "other")).join();
		java.util.concurrent.CompletableFuture<LeaseLostException> never = released.whenLost().toCompletableFuture();
		released.release();
		this.parts.timers.advanceMillis(5_000);
		assertThat(never).isNotDone();
	}

}
