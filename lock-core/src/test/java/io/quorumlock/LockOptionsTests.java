package io.quorumlock;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockOptions#orElse}: every option not set is taken from the fallback; no copy is
 * made when one side already is the merge.
 */
class LockOptionsTests {

	private static final LockOptions DEFAULTS = LockOptions.none()
		.lease(Duration.ofSeconds(30))
		.waitAtMost(Duration.ZERO)
		.renew(true)
		.holdAtLeast(Duration.ZERO);

	@Test
	void orElseTakesWhatIsNotSetFromTheFallback() {
		LockOptions merged = LockOptions.none().lease(Duration.ofSeconds(5)).orElse(DEFAULTS);
		assertThat(merged.lease()).contains(Duration.ofSeconds(5));
		assertThat(merged.waitAtMost()).contains(Duration.ZERO);
		assertThat(merged.renew()).contains(true);
		assertThat(merged.holdAtMost()).isEmpty();
		assertThat(merged.holdAtLeast()).contains(Duration.ZERO);
	}

	@Test
	void orElseOfNothingIsTheFallbackItself() {
		assertThat(LockOptions.none().orElse(DEFAULTS)).isSameAs(DEFAULTS);
	}

	@Test
	void orElseIsTheReceiverWhenTheFallbackAddsNothing() {
		LockOptions all = DEFAULTS.holdAtMost(Duration.ofMinutes(1)).lease(Duration.ofSeconds(10));
		assertThat(all.orElse(DEFAULTS)).isSameAs(all);
		assertThat(all.orElse(LockOptions.none())).isSameAs(all);
		LockOptions lease = LockOptions.none().lease(Duration.ofSeconds(10));
		assertThat(lease.orElse(LockOptions.none().lease(Duration.ofSeconds(1)))).isSameAs(lease);
	}

	@Test
	void orElseNeverLetsTheFallbackOverrideWhatIsSet() {
		LockOptions own = LockOptions.none().renew(false).holdAtMost(Duration.ofSeconds(9));
		LockOptions merged = own.orElse(DEFAULTS.holdAtMost(Duration.ofSeconds(60)));
		assertThat(merged.renew()).contains(false);
		assertThat(merged.holdAtMost()).contains(Duration.ofSeconds(9));
		assertThat(merged.lease()).contains(Duration.ofSeconds(30));
	}

}
