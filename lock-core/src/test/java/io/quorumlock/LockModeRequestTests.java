package io.quorumlock;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link LockRequest#mode(LockMode)} and {@link LockRequest#permits(int)}: immutable,
 * kept by every other copy, and refused when they make no sense.
 */
class LockModeRequestTests {

	@Test
	void defaultsToOneExclusiveHolder() {
		LockRequest request = LockRequest.of("k");
		assertThat(request.mode()).isEqualTo(LockMode.EXCLUSIVE);
		assertThat(request.permits()).isEqualTo(1);
	}

	@Test
	void modeAndPermitsAreKeptByEveryCopy() {
		LockRequest base = LockRequest.of("k");
		LockRequest shared = base.mode(LockMode.SHARED).name("catalog").label("x").lease(Duration.ofSeconds(5));
		assertThat(base.mode()).isEqualTo(LockMode.EXCLUSIVE);
		assertThat(shared.mode()).isEqualTo(LockMode.SHARED);
		assertThat(shared.name()).isEqualTo("catalog");
		LockRequest permits = base.permits(3).waitAtMost(Duration.ofSeconds(1)).name("exports");
		assertThat(permits.permits()).isEqualTo(3);
		assertThat(base.permits()).isEqualTo(1);
		assertThat(permits).isNotEqualTo(base.waitAtMost(Duration.ofSeconds(1)).name("exports"));
		assertThat(permits).isEqualTo(base.name("exports").waitAtMost(Duration.ofSeconds(1)).permits(3));
		assertThat(shared.toString()).contains("mode=SHARED");
		assertThat(permits.toString()).contains("permits=3");
	}

	@Test
	void permitsBelowOneAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("k").permits(0))
			.withMessageContaining("permits must be at least 1, was 0")
			.withMessageContaining("k");
	}

	@Test
	void permitsWithSharedAreRefusedEitherWay() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("k").mode(LockMode.SHARED).permits(2))
			.withMessageContaining("permits = 2 with mode SHARED");
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("k").permits(2).mode(LockMode.SHARED))
			.withMessageContaining("permits = 2 with mode SHARED");
		assertThat(LockRequest.of("k").mode(LockMode.SHARED).permits(1).permits()).isEqualTo(1);
	}

	@Test
	void permitsWithSeveralKeysAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of(List.of("a", "b")).permits(2))
			.withMessageContaining("permits = 2 with 2 keys [a, b]");
	}

	@Test
	void nullModeIsRefused() {
		org.assertj.core.api.Assertions.assertThatNullPointerException()
			.isThrownBy(() -> LockRequest.of("k").mode(null))
			.withMessageContaining("'mode'");
	}

}
