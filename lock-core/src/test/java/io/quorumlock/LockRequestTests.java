package io.quorumlock;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link LockRequest} and {@link LockOptions} refuse bad input when built.
 */
class LockRequestTests {

	@Test
	void buildsImmutably() {
		LockRequest base = LockRequest.of("order:42");
		LockRequest full = base.name("orders")
			.lease(Duration.ofSeconds(30))
			.waitAtMost(Duration.ofSeconds(5))
			.renew(true);
		assertThat(base.lease()).isEmpty();
		assertThat(full.keys()).containsExactly("order:42");
		assertThat(full.name()).isEqualTo("orders");
		assertThat(full.lease()).contains(Duration.ofSeconds(30));
		assertThat(full.waitAtMost()).contains(Duration.ofSeconds(5));
		assertThat(full.options().renew()).contains(true);
		assertThat(full.label()).isEqualTo("orders");
		assertThat(base.label()).isEqualTo("unnamed");
		assertThat(full.label("OrderService.pay").label()).isEqualTo("OrderService.pay");
	}

	@Test
	void severalKeysAreSorted() {
		assertThat(LockRequest.of(List.of("b", "c", "a")).keys()).containsExactly("a", "b", "c");
	}

	@Test
	void nullOrEmptyKeyIsRefused() {
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> LockRequest.of((String) null))
			.withMessage("lock key must not be null");
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> LockRequest.of(""))
			.withMessage("lock key must not be empty");
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> LockRequest.of(List.of()))
			.withMessageContaining("empty collection");
	}

	@Test
	void collectionWithNullOrDuplicateIsRefused() {
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> LockRequest.of(Arrays.asList("a", null)))
			.withMessageContaining("null in [a, null]");
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> LockRequest.of(List.of("a", "b", "a")))
			.withMessageContaining("'a' appears twice in [a, b, a]");
	}

	@Test
	void badDurationsAreRefusedWithTheValue() {
		LockRequest request = LockRequest.of("k");
		assertThatIllegalArgumentException().isThrownBy(() -> request.lease(Duration.ZERO))
			.withMessageContaining("lease must be positive, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> request.waitAtMost(Duration.ofMillis(-1)))
			.withMessageContaining("waitAtMost must not be negative, was PT-0.001S");
		assertThatIllegalArgumentException().isThrownBy(() -> request.holdAtMost(Duration.ofSeconds(-1)))
			.withMessageContaining("holdAtMost must be positive");
	}

	@Test
	void nameWithBraceIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("k").name("a{b"))
			.withMessageContaining("'a{b'");
	}

	@Test
	void optionsFallBackFieldByField() {
		LockOptions request = LockOptions.none().lease(Duration.ofSeconds(1));
		LockOptions instance = LockOptions.none().lease(Duration.ofSeconds(2)).waitAtMost(Duration.ofSeconds(3));
		LockOptions merged = request.orElse(instance);
		assertThat(merged.lease()).contains(Duration.ofSeconds(1));
		assertThat(merged.waitAtMost()).contains(Duration.ofSeconds(3));
		assertThat(merged.renew()).isEmpty();
	}

}
