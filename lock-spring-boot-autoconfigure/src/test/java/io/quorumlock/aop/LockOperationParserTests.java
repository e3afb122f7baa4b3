package io.quorumlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.util.ReflectionUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.quorumlock.DistributedLock;
import io.quorumlock.LockOptions;
import io.quorumlock.OnFailure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Reading a declaration: durations, options the annotation sets itself, labels and return
 * kinds, without a context or Redis.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LockOperationParserTests {

	private final LockOperationParser parser = new LockOperationParser(new LockKeyEvaluator());

	@ParameterizedTest
	@CsvSource({ "500ms, PT0.5S", "30s, PT30S", "2m, PT2M", "1h, PT1H", "1d, PT24H", "PT30S, PT30S", "250, PT0.25S",
			"10us, PT0.00001S" })
	void durationsAcceptBootsForms(String text, String expected) {
		assertThat(LockDurations.parse(text)).isEqualTo(Duration.parse(expected));
	}

	@Test
	void durationsRejectGarbage() {
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> LockDurations.parse("3x"));
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> LockDurations.parse("PTx"));
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> LockDurations.parse("1.5s"));
	}

	@Test
	void onlyTheAnnotationsOwnAttributesBecomeOptions() {
		LockOperation plain = parse("plain");
		assertThat(plain.options()).isEqualTo(LockOptions.none());
		assertThat(plain.label()).isEqualTo("Declarations.plain");
		assertThat(plain.name()).isEmpty();
		assertThat(plain.returnKind()).isEqualTo(ReturnKind.BLOCKING);
		LockOperation full = parse("full");
		assertThat(full.options()).isEqualTo(LockOptions.none()
			.lease(Duration.ofSeconds(30))
			.waitAtMost(Duration.ZERO)
			.holdAtMost(Duration.ofMinutes(2))
			.renew(false));
		assertThat(full.label()).isEqualTo("orders");
		assertThat(full.description()).isEqualTo("Declarations.full(String, int)");
	}

	@Test
	void returnKindsFollowTheDeclaredType() {
		assertThat(parse("mono").returnKind()).isEqualTo(ReturnKind.MONO);
		assertThat(parse("flux").returnKind()).isEqualTo(ReturnKind.FLUX);
		assertThat(parse("stage").returnKind()).isEqualTo(ReturnKind.COMPLETION_STAGE);
		assertThat(parse("future").returnKind()).isEqualTo(ReturnKind.COMPLETION_STAGE);
		assertThat(parse("optional").returnKind()).isEqualTo(ReturnKind.BLOCKING);
	}

	@Test
	void plainFutureIsRefusedSinceItsEndCannotBeObserved() {
		assertThatExceptionOfType(DistributedLockDeclarationException.class).isThrownBy(() -> parse("plainFuture"))
			.withMessage("@DistributedLock on Declarations.plainFuture(): return type \"java.util.concurrent.Future\" "
					+ "is not supported: the lock would be released when the method returns, while its work goes "
					+ "on, and a plain Future cannot be observed without blocking; return CompletableFuture or "
					+ "CompletionStage");
	}

	@Test
	void kotlinSuspendFunctionIsRefused() {
		assertThatExceptionOfType(DistributedLockDeclarationException.class).isThrownBy(() -> parse("suspending"))
			.withMessageStartingWith("@DistributedLock on Declarations.suspending(String, Continuation): ")
			.withMessageContaining("is a Kotlin suspend function")
			.withMessageContaining("return a Mono, Flux or CompletableFuture");
	}

	@Test
	void negativeAndZeroDurationsAreRefused() {
		assertThatExceptionOfType(DistributedLockDeclarationException.class).isThrownBy(() -> parse("negativeWait"))
			.withMessage("@DistributedLock on Declarations.negativeWait(): waitAtMost \"-1s\" must not be negative");
		assertThatExceptionOfType(DistributedLockDeclarationException.class).isThrownBy(() -> parse("zeroLease"))
			.withMessage("@DistributedLock on Declarations.zeroLease(): lease \"0s\" must be positive");
		assertThatExceptionOfType(DistributedLockDeclarationException.class).isThrownBy(() -> parse("shortHold"))
			.withMessage("@DistributedLock on Declarations.shortHold(): holdAtMost \"10s\" is refused: "
					+ "holdAtMost 10000 ms is shorter than lease 30000 ms");
	}

	@Test
	void holdAtLeastIsParsedAndCheckedAgainstAnUnrenewedLease() {
		assertThat(parse("scheduled").options().holdAtLeast()).contains(Duration.ofSeconds(20));
		assertThatExceptionOfType(DistributedLockDeclarationException.class).isThrownBy(() -> parse("longHold"))
			.withMessage("@DistributedLock on Declarations.longHold(): holdAtLeast \"40s\" is refused: "
					+ "holdAtLeast 40000 ms is longer than the lease 30000 ms without renewal: the key would expire "
					+ "first; lengthen the lease or turn renewal on (renew = false)");
		assertThatExceptionOfType(DistributedLockDeclarationException.class).isThrownBy(() -> parse("negativeHold"))
			.withMessage("@DistributedLock on Declarations.negativeHold(): holdAtLeast \"-1s\" must not be negative");
		assertThat(parse("renewedLongHold").options().holdAtLeast()).contains(Duration.ofSeconds(40));
	}

	@Test
	void unsupportedStageTypeIsRefused() {
		assertThatExceptionOfType(DistributedLockDeclarationException.class).isThrownBy(() -> parse("customStage"))
			.withMessageContaining("must return CompletionStage or CompletableFuture");
	}

	@Test
	void notAnnotatedIsNull() {
		assertThat(parse("notAnnotated")).isNull();
	}

	private LockOperation parse(String name) {
		Method method = ReflectionUtils.findMethod(Declarations.class, name, (Class<?>[]) null);
		return this.parser.parse(method, Declarations.class);
	}

	static class Declarations {

		@DistributedLock(key = "'k'")
		void plain() {
		}

		@DistributedLock(key = "#id + #n", name = "orders", lease = "30s", waitAtMost = "0s", holdAtMost = "2m",
				renew = false)
		void full(String id, int n) {
		}

		@DistributedLock(key = "'k'")
		Mono<String> mono() {
			return Mono.empty();
		}

		@DistributedLock(key = "'k'")
		Flux<String> flux() {
			return Flux.empty();
		}

		@DistributedLock(key = "'k'")
		CompletionStage<String> stage() {
			return null;
		}

		@DistributedLock(key = "'k'")
		CompletableFuture<String> future() {
			return null;
		}

		@DistributedLock(key = "'k'", onFailure = OnFailure.SKIP)
		Optional<String> optional() {
			return Optional.empty();
		}

		@DistributedLock(key = "'k'")
		Future<String> plainFuture() {
			return null;
		}

		@DistributedLock(key = "#id")
		Object suspending(String id, kotlin.coroutines.Continuation<? super String> continuation) {
			return null;
		}

		@DistributedLock(key = "'k'", waitAtMost = "-1s")
		void negativeWait() {
		}

		@DistributedLock(key = "'k'", lease = "0s")
		void zeroLease() {
		}

		@DistributedLock(key = "'k'", lease = "30s", holdAtMost = "10s")
		void shortHold() {
		}

		@DistributedLock(key = "'k'", lease = "30s", renew = false, holdAtLeast = "20s")
		void scheduled() {
		}

		@DistributedLock(key = "'k'", lease = "30s", renew = false, holdAtLeast = "40s")
		void longHold() {
		}

		@DistributedLock(key = "'k'", holdAtLeast = "-1s")
		void negativeHold() {
		}

		@DistributedLock(key = "'k'", lease = "30s", holdAtLeast = "40s")
		void renewedLongHold() {
		}

		@DistributedLock(key = "'k'")
		CustomStage customStage() {
			return null;
		}

		void notAnnotated() {
		}

	}

	static class CustomStage extends CompletableFuture<String> {

	}

}
