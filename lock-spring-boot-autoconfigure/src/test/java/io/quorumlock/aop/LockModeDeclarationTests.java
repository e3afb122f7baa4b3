package io.quorumlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.util.ReflectionUtils;

import io.quorumlock.DistributedLock;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockMode;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code mode} and {@code permits} on the annotation: read into the operation and the
 * request, and a declaration that makes no sense stops the start-up, both through the
 * parser and through the start-up validator.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LockModeDeclarationTests {

	private final LockOperationParser parser = new LockOperationParser(new LockKeyEvaluator());

	private final LockKeyEvaluator evaluator = new LockKeyEvaluator();

	@Test
	void modeAndPermitsReachTheRequest() {
		LockOperation shared = parse("shared");
		assertThat(shared.mode()).isEqualTo(LockMode.SHARED);
		assertThat(shared.permits()).isEqualTo(1);
		LockRequest request = this.evaluator.request(shared, new Declarations(), new Object[0], null);
		assertThat(request.mode()).isEqualTo(LockMode.SHARED);
		LockOperation permits = parse("permits");
		assertThat(permits.mode()).isEqualTo(LockMode.EXCLUSIVE);
		assertThat(this.evaluator.request(permits, new Declarations(), new Object[0], null).permits()).isEqualTo(3);
		assertThat(this.evaluator.request(parse("plain"), new Declarations(), new Object[0], null))
			.isEqualTo(LockRequest.of("k").label("Declarations.plain").options(LockOptions.none()));
	}

	@Test
	void permitsBelowOneStopTheStartUp() {
		assertThatExceptionOfType(DistributedLockDeclarationException.class).isThrownBy(() -> parse("noPermits"))
			.withMessageContaining("Declarations.noPermits()")
			.withMessageContaining("permits")
			.withMessageContaining("\"0\"")
			.withMessageContaining("must be at least 1");
		assertThatExceptionOfType(DistributedLockDeclarationException.class)
			.isThrownBy(() -> validator().validate(NoPermitsBean.class))
			.withMessageContaining("NoPermitsBean.run()")
			.withMessageContaining("must be at least 1");
	}

	@Test
	void permitsWithSharedStopTheStartUp() {
		assertThatExceptionOfType(DistributedLockDeclarationException.class).isThrownBy(() -> parse("sharedPermits"))
			.withMessageContaining("Declarations.sharedPermits()")
			.withMessageContaining("\"2\"")
			.withMessageContaining("is above 1 with mode = SHARED");
		assertThatExceptionOfType(DistributedLockDeclarationException.class)
			.isThrownBy(() -> validator().validate(SharedPermitsBean.class))
			.withMessageContaining("SharedPermitsBean.run()")
			.withMessageContaining("is above 1 with mode = SHARED");
	}

	@Test
	void permitsOnACollectionKeyNameTheMethod() {
		LockOperation operation = parse("permitsOnMany");
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(
				() -> this.evaluator.request(operation, new Declarations(), new Object[] { List.of("a", "b") }, null))
			.withMessageContaining("Declarations.permitsOnMany(List)")
			.withMessageContaining("permits = 2 applies to one key at a time");
	}

	private DistributedLockMethodValidator validator() {
		return new DistributedLockMethodValidator(Duration.ofMillis(50),
				(name) -> LockOptions.none().lease(Duration.ofSeconds(30)));
	}

	private LockOperation parse(String name) {
		Method method = ReflectionUtils.findMethod(Declarations.class, name, (Class<?>[]) null);
		return this.parser.parse(method, Declarations.class);
	}

	static class Declarations {

		@DistributedLock(key = "'k'")
		public void plain() {
		}

		@DistributedLock(key = "'k'", mode = LockMode.SHARED)
		public void shared() {
		}

		@DistributedLock(key = "'k'", permits = 3)
		public void permits() {
		}

		@DistributedLock(key = "'k'", permits = 0)
		public void noPermits() {
		}

		@DistributedLock(key = "'k'", permits = 2, mode = LockMode.SHARED)
		public void sharedPermits() {
		}

		@DistributedLock(key = "#keys", permits = 2)
		public void permitsOnMany(List<String> keys) {
		}

	}

	static class NoPermitsBean {

		@DistributedLock(key = "'k'", permits = 0)
		public void run() {
		}

	}

	static class SharedPermitsBean {

		@DistributedLock(key = "'k'", permits = 2, mode = LockMode.SHARED)
		public void run() {
		}

	}

}
