package io.quorumlock.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Redlock's timing arithmetic on a fake clock, no Redis.
 */
class ValidityTests {

	private static final long MS = 1_000_000L;

	@Test
	void validityIsLeaseMinusElapsedMinusDriftAllowance() {
		Validity validity = new Validity(0.01);
		long start = 5_000 * MS;
		long until = validity.validUntil(start, 30_000 * MS);
		// 30 s lease, drift 1 % (300 ms) + 2 ms: valid for 29 698 ms from the attempt's
		// start
		assertThat(until - start).isEqualTo(29_698 * MS);
		// 10 ms spent acquiring leaves 29 688 ms
		assertThat(Validity.remaining(until, start + 10 * MS)).isEqualTo(29_688 * MS);
	}

	@Test
	void slowAcquisitionLeavesNoValidity() {
		Validity validity = new Validity(0.01);
		long until = validity.validUntil(0, 200 * MS);
		// 200 ms lease: 2 ms + 2 ms of allowance, so 196 ms of acquisition exhausts it
		assertThat(Validity.remaining(until, 195 * MS)).isPositive();
		assertThat(Validity.remaining(until, 196 * MS)).isZero();
		assertThat(Validity.remaining(until, 250 * MS)).isNegative();
	}

	@Test
	void zeroDriftStillKeepsTheFixedTwoMilliseconds() {
		Validity validity = new Validity(0);
		assertThat(validity.driftNanos(Duration.ofSeconds(10).toNanos())).isEqualTo(2 * MS);
	}

	@Test
	void worksAcrossNanoTimeOverflow() {
		Validity validity = new Validity(0.01);
		long start = Long.MAX_VALUE - 5 * MS;
		long until = validity.validUntil(start, 1_000 * MS);
		assertThat(Validity.remaining(until, start + 100 * MS)).isEqualTo((1_000 - 10 - 2 - 100) * MS);
	}

	@Test
	void driftFactorOutsideRangeIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Validity(0.5)).withMessageContaining("0.5");
		assertThatIllegalArgumentException().isThrownBy(() -> new Validity(-0.1)).withMessageContaining("-0.1");
		assertThatIllegalArgumentException().isThrownBy(() -> new Validity(Double.NaN)).withMessageContaining("NaN");
	}

}
