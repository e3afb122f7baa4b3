package io.quorumlock;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link CurrentLease#require()} outside any lease says what is missing and why, not a
 * bare "No value present".
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CurrentLeaseRequireTests {

	@Test
	void requireOutsideALeaseNamesTheUsualCause() {
		assertThatIllegalStateException().isThrownBy(CurrentLease::require)
			.withMessageStartingWith("No @DistributedLock lease is active on thread '")
			.withMessageContaining("called on 'this'")
			.withMessageContaining("did not go through the Spring proxy");
	}

}
