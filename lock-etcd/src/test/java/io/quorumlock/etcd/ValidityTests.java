package io.quorumlock.etcd;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The timing math of an etcd lease, without etcd.
 */
class ValidityTests {

	@Test
	void validityCountsFromTheRequestsStartLessTheDriftAllowance() {
		Validity validity = new Validity(0.01);
		long lease = Duration.ofSeconds(10).toNanos();
		// 10 s - (100 ms + 2 ms)
		assertThat(validity.validUntil(1_000, lease)).isEqualTo(1_000 + lease - Duration.ofMillis(102).toNanos());
	}

	@Test
	void etcdKeepsALeaseForWholeSecondsNeverShorterThanTheHoldersValidity() {
		assertThat(Validity.ttlSeconds(Duration.ofMillis(400))).isEqualTo(1);
		assertThat(Validity.ttlSeconds(Duration.ofSeconds(4))).isEqualTo(4);
		assertThat(Validity.ttlSeconds(Duration.ofMillis(4001))).isEqualTo(5);
		assertThat(Validity.ttlSeconds(Duration.ofNanos(1))).isEqualTo(1);
	}

	@Test
	void remainingIsNeverNegative() {
		assertThat(Validity.remaining(100, 150)).isZero();
		assertThat(Validity.remaining(150, 100)).isEqualTo(50);
	}

	@Test
	void aDriftFactorOutOfRangeIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Validity(0.5)).withMessageContaining("[0, 0.5)");
		assertThatIllegalArgumentException().isThrownBy(() -> new Validity(-0.1));
	}

}
