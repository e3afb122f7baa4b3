package io.quorumlock.autoconfigure;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockRequest;
import io.quorumlock.autoconfigure.BadInput.Case;
import io.quorumlock.autoconfigure.BadInput.ThrowingFunction;
import io.quorumlock.testing.RedisServers;

import static io.quorumlock.autoconfigure.BadInput.runner;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad keys at call time, through the aspect and the registry a context wires: a key that
 * evaluates to null, to an empty string, a collection with a duplicate or a null, and a
 * key above {@code quorumlock.max-key-length}. The method never runs; the message names
 * the method, the expression and the key.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KeyBadInputIntegrationTests {

	@RegisterExtension
	static final RedisServers plain = RedisServers.start(1);

	@ParameterizedTest(name = "{0}")
	@MethodSource("cases")
	void badInputIsRefusedWithOneClearMessage(Case badInput) {
		BadInput.assertRefused(badInput);
	}

	static Stream<Arguments> cases() {
		List<Case> all = new ArrayList<>();
		keys(all);
		return BadInput.arguments(all);
	}

	private static void keys(List<Case> all) {
		all.add(new Case("key: longer than quorumlock.max-key-length at call time",
				() -> call(List.of("quorumlock.max-key-length=16"),
						(registry) -> registry.tryAcquire(LockRequest.of("customer-0123456789"))),
				LockKeyException.class, "key 'customer-0123456789...' is 19 characters long",
				"above the maximum of 16"));
		all.add(new Case("annotation: key that evaluates to null at call time",
				() -> call(List.of(), (registry) -> null, (context) -> context.getBean(KeyedService.class).run(null)),
				LockKeyException.class, "KeyedService.run(String)", "key \"#id\" evaluated to null", "did not run"));
		all.add(new Case("annotation: key that evaluates to an empty string at call time",
				() -> call(List.of(), (registry) -> null, (context) -> context.getBean(KeyedService.class).run("")),
				LockKeyException.class, "KeyedService.run(String)", "key \"#id\" evaluated to an empty string"));
		all.add(new Case("annotation: collection key with a duplicate at call time",
				() -> call(List.of(), (registry) -> null,
						(context) -> context.getBean(KeyedService.class).all(List.of("a", "b", "a"))),
				LockKeyException.class, "KeyedService.all(List)", "key \"#ids\"", "where 'a' appears twice"));
		all.add(new Case("annotation: collection key with a null at call time",
				() -> call(List.of(), (registry) -> null,
						(context) -> context.getBean(KeyedService.class).all(Arrays.asList("a", null))),
				LockKeyException.class, "KeyedService.all(List)", "key \"#ids\"", "which has a null element"));
	}

	/** A context on node 0 with the {@link Keyed} service, running {@code action}. */
	private static Object call(List<String> properties,
			java.util.function.Function<DistributedLockRegistry, Object> action) throws Exception {
		return call(properties, action, (context) -> null);
	}

	private static Object call(List<String> properties,
			java.util.function.Function<DistributedLockRegistry, Object> action,
			ThrowingFunction<org.springframework.context.ApplicationContext> onContext) throws Exception {
		AtomicReference<Object> result = new AtomicReference<>();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		runner.withPropertyValues("quorumlock.nodes=" + plain.uris().get(0), BoundedWait.NODE_TIMEOUT)
			.withPropertyValues(properties.toArray(String[]::new))
			.withUserConfiguration(Keyed.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				try {
					result.set(action.apply(context.getBean(DistributedLockRegistry.class)));
					Object more = onContext.apply(context);
					if (more != null) {
						result.set(more);
					}
				}
				catch (Throwable ex) {
					failure.set(ex);
				}
			});
		if (failure.get() != null) {
			throw (failure.get() instanceof Exception ex) ? ex : new IllegalStateException(failure.get());
		}
		return result.get();
	}

	// ---- annotated beans ----

	@Configuration(proxyBeanMethods = false)
	static class Keyed {

		@Bean
		KeyedService keyedService() {
			return new KeyedService();
		}

	}

	static class KeyedService {

		@DistributedLock(key = "#id")
		public String run(String id) {
			return "ran " + id;
		}

		@DistributedLock(key = "#ids")
		public String all(List<String> ids) {
			return "ran " + ids;
		}

	}

}
