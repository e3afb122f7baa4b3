package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.quorumlock.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reason given for a lease that ran out, whichever of the watchdog and the release
 * notices it first.
 */
class LeaseExpiryTests {

	private static ResolvedRequest request(boolean renew, Duration holdAtMost) {
		return new ResolvedRequest(LockRequest.of("k"), List.of("lock:{k}"), Duration.ofMillis(400), Duration.ZERO,
				renew, Optional.ofNullable(holdAtMost));
	}

	@Test
	void unrenewedLeaseNamesItsLease() {
		assertThat(LeaseWatchdog.expired(request(false, null)))
			.isEqualTo("expired unrenewed after its lease of 400 ms");
	}

	@Test
	void boundedRenewalNamesHoldAtMost() {
		assertThat(LeaseWatchdog.expired(request(true, Duration.ofSeconds(2))))
			.isEqualTo("expired after renewal stopped at holdAtMost 2000 ms");
	}

	@Test
	void renewedLeaseWithoutBoundSaysItsRenewalCameTooLate() {
		// used to fail with NoSuchElementException on the empty holdAtMost
		assertThat(LeaseWatchdog.expired(request(true, null)))
			.isEqualTo("expired before its renewal could run (lease 400 ms)");
	}

}
