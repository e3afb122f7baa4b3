package io.quorumlock.aop;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLock;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.OnFailure;
import io.quorumlock.autoconfigure.BoundedWait;
import io.quorumlock.autoconfigure.QuorumLockAutoConfiguration;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The {@code @DistributedLock} aspect, auto-configured, against a real Redis: mutual
 * exclusion, keys, failure policies, start-up checks and {@link CurrentLease}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DistributedLockAspectIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.nodes=" + redis.uris().get(0), BoundedWait.NODE_TIMEOUT)
		.withUserConfiguration(ServiceConfiguration.class);

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterEach
	void stopExecutor() {
		this.executor.shutdownNow();
	}

	@Test
	void twoCallersOnTheSameKeyExcludeEachOther() {
		this.runner.run((context) -> {
			LockedService service = context.getBean(LockedService.class);
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			Future<?> first = this.executor.submit(() -> service.hold("42", entered, release));
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(redis.node(0).exists("lock:shared:{42}")).isTrue();
			assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> service.tryNow("42"))
				.withMessageContaining("shared");
			release.countDown();
			first.get(10, TimeUnit.SECONDS);
			assertThat(service.tryNow("42")).isEqualTo("ran 42");
			assertThat(redis.node(0).exists("lock:shared:{42}")).isFalse();
		});
	}

	@Test
	void differentKeysDoNotExcludeEachOther() {
		this.runner.run((context) -> {
			LockedService service = context.getBean(LockedService.class);
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			Future<?> first = this.executor.submit(() -> service.hold("a", entered, release));
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(service.tryNow("b")).isEqualTo("ran b");
			release.countDown();
			first.get(10, TimeUnit.SECONDS);
		});
	}

	@Test
	void collectionKeyLocksEveryElementAllOrNothing() {
		this.runner.run((context) -> {
			LockedService service = context.getBean(LockedService.class);
			assertThat(service.all(List.of("c", "a", "b"))).containsExactly("a", "b", "c");
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			Future<?> first = this.executor.submit(() -> service.hold("b", entered, release));
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> service.all(List.of("a", "b", "c")));
			// nothing of the failed set stays held
			assertThat(redis.node(0).exists("lock:shared:{a}")).isFalse();
			assertThat(redis.node(0).exists("lock:shared:{c}")).isFalse();
			assertThat(service.tryNow("a")).isEqualTo("ran a");
			assertThat(service.allArray(new String[] { "c", "a" })).containsExactly("a", "c");
			release.countDown();
			first.get(10, TimeUnit.SECONDS);
		});
	}

	@Test
	void collectionKeyWithDuplicateOrNullElementIsRefused() {
		this.runner.run((context) -> {
			LockedService service = context.getBean(LockedService.class);
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> service.all(List.of("a", "a")))
				.withMessageContaining("LockedService.all")
				.withMessageContaining("'a' appears twice");
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> service.all(Arrays.asList("a", null)))
				.withMessageContaining("null element");
			assertThat(service.calls()).isZero();
		});
	}

	@Test
	void skipReturnsEmptyResultWithoutRunningTheMethodWhileThrowThrows() {
		this.runner.run((context) -> {
			LockedService service = context.getBean(LockedService.class);
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			Future<?> first = this.executor.submit(() -> service.hold("7", entered, release));
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			int before = service.calls();
			assertThat(service.skipNow("7")).isNull();
			assertThat(service.skipOptional("7")).isEmpty();
			assertThat(service.calls()).isEqualTo(before);
			assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> service.tryNow("7"));
			release.countDown();
			first.get(10, TimeUnit.SECONDS);
			assertThat(service.skipNow("7")).isEqualTo("ran 7");
			assertThat(service.skipOptional("7")).contains("ran 7");
		});
	}

	@Test
	void nullKeyThrowsLockKeyExceptionAndTheMethodDoesNotRun() {
		this.runner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> orders.pay(new Order(null)))
				.withMessageContaining("OrderService.pay")
				.withMessageContaining("#order.id")
				.withMessageContaining("null");
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> orders.pay(new Order("")))
				.withMessageContaining("empty");
			assertThat(orders.paid()).isZero();
		});
	}

	@Test
	void designCardUsageWorksVerbatim() {
		this.runner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.pay(new Order("42"));
			assertThat(orders.paid()).isEqualTo(1);
			Lease lease = orders.lastLease();
			assertThat(lease.keys()).containsExactly("42");
			assertThat(orders.lastRemaining()).isGreaterThan(Duration.ofSeconds(25))
				.isLessThanOrEqualTo(Duration.ofSeconds(30));
			assertThat(orders.lastRedisKeyExisted()).isTrue();
			assertThat(lease.isValid()).isFalse();
		});
	}

	@Test
	void keysByIndexRootAndBean() {
		this.runner.run((context) -> {
			KeyService keys = context.getBean(KeyService.class);
			assertThat(keys.byIndex("p", 1)).containsExactly("p");
			assertThat(keys.byArgumentIndex("a")).containsExactly("a");
			assertThat(keys.byMethodName()).containsExactly("byMethodName");
			assertThat(keys.byTarget()).containsExactly("KeyService");
			assertThat(keys.byBean("x")).containsExactly("tenant-7:x");
		});
	}

	@Test
	void currentLeaseIsPresentInsideAndEmptyOutside() {
		this.runner.run((context) -> {
			LockedService service = context.getBean(LockedService.class);
			assertThat(CurrentLease.get()).isEmpty();
			assertThat(service.currentKeys("k")).containsExactly("k");
			assertThat(CurrentLease.get()).isEmpty();
		});
	}

	@Test
	void leaseLostWhileRunningIsThrownAfterTheMethodReturns() {
		this.runner.run((context) -> {
			LockedService service = context.getBean(LockedService.class);
			assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> service.outlive("lost", false))
				.withMessageContaining("lost");
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> service.outlive("lost-too", true))
				.withMessage("the method's own failure")
				.satisfies(
						(ex) -> assertThat(ex.getSuppressed()).singleElement().isInstanceOf(LeaseLostException.class));
		});
	}

	@Test
	void badSpelStopsTheStartup() {
		this.runner.withUserConfiguration(BadSpelConfiguration.class).run((context) -> {
			assertThat(declarationFailure(context))
				.hasMessageStartingWith("@DistributedLock on BadSpelService.pay(Order): key \"#order.\" "
						+ "is not a valid SpEL expression");
		});
	}

	@Test
	void unknownParameterInKeyStopsTheStartup() {
		this.runner.withUserConfiguration(TypoConfiguration.class).run((context) -> {
			assertThat(declarationFailure(context))
				.hasMessage("@DistributedLock on TypoService.pay(Order): key \"#ordr.id\" refers to #ordr, "
						+ "which is not a parameter (parameters: #order, #p0, #a0)");
		});
	}

	@Test
	void badDurationStopsTheStartup() {
		this.runner.withUserConfiguration(BadDurationConfiguration.class).run((context) -> {
			assertThat(declarationFailure(context)).hasMessageStartingWith(
					"@DistributedLock on BadDurationService.pay(Order): lease \"3x\" " + "is not a duration");
		});
	}

	@Test
	void skipOnPrimitiveReturnStopsTheStartup() {
		this.runner.withUserConfiguration(SkipPrimitiveConfiguration.class).run((context) -> {
			assertThat(declarationFailure(context))
				.hasMessageStartingWith("@DistributedLock on SkipPrimitiveService.count(): onFailure \"SKIP\" "
						+ "needs an empty result, but the method returns int");
		});
	}

	@Test
	void leaseNotAboveThreeNodeTimeoutsStopsTheStartup() {
		this.runner.withPropertyValues("quorumlock.node-timeout=50ms")
			.withUserConfiguration(ShortLeaseConfiguration.class)
			.run((context) -> {
				assertThat(declarationFailure(context))
					.hasMessageStartingWith("@DistributedLock on ShortLeaseService.run(): lease \"150ms\" "
							+ "is refused: lease 150 ms is too short for node timeout 50 ms: the node timeout must be "
							+ "below a third of every lease");
			});
	}

	@Test
	void holdAtMostShorterThanTheConfiguredLeaseStopsTheStartup() {
		this.runner.withUserConfiguration(ShortHoldConfiguration.class).run((context) -> {
			assertThat(declarationFailure(context))
				.hasMessageStartingWith("@DistributedLock on ShortHoldService.run(): holdAtMost \"10s\" "
						+ "is refused: holdAtMost 10000 ms is shorter than lease 30000 ms (lease from configuration)");
		});
	}

	@Test
	void holdAtLeastLongerThanTheConfiguredUnrenewedLeaseStopsTheStartup() {
		this.runner.withUserConfiguration(LongMinimumHoldConfiguration.class).run((context) -> {
			assertThat(declarationFailure(context))
				.hasMessageStartingWith("@DistributedLock on LongMinimumHoldService.run(): holdAtLeast \"40s\" "
						+ "is refused: holdAtLeast 40000 ms is longer than the lease 30000 ms without renewal");
		});
	}

	@Test
	void configuredLeaseShorterThanTheHoldAtLeastOfAnUnrenewedLockStopsTheStartup() {
		this.runner.withPropertyValues("quorumlock.instances.plain.hold-at-least=20s")
			.withUserConfiguration(PlainMinimumHoldConfiguration.class)
			.run((context) -> assertThat(declarationFailure(context))
				.hasMessageStartingWith("@DistributedLock on PlainMinimumHoldService.run(): lease \"10s\" "
						+ "is refused: holdAtLeast 20000 ms is longer than the lease 10000 ms without renewal"));
	}

	@Test
	void missingBeanInKeyStopsTheStartup() {
		this.runner.withUserConfiguration(MissingBeanConfiguration.class).run((context) -> {
			assertThat(declarationFailure(context))
				.hasMessage("@DistributedLock on MissingBeanService.run(String): key \"@nope.of(#id)\" "
						+ "refers to bean 'nope', which does not exist");
		});
	}

	private static DistributedLockDeclarationException declarationFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		Throwable failure = context.getStartupFailure();
		while (failure != null && !(failure instanceof DistributedLockDeclarationException)) {
			failure = failure.getCause();
		}
		assertThat(failure).as("a DistributedLockDeclarationException in %s", context.getStartupFailure()).isNotNull();
		return (DistributedLockDeclarationException) failure;
	}

	record Order(String id) {
	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConfiguration {

		@Bean
		LockedService lockedService() {
			return new LockedService();
		}

		@Bean
		OrderService orderService() {
			return new OrderService();
		}

		@Bean
		KeyService keyService() {
			return new KeyService();
		}

		@Bean
		Tenant tenant() {
			return new Tenant();
		}

	}

	static class LockedService {

		private final AtomicInteger calls = new AtomicInteger();

		@DistributedLock(key = "#key", name = "shared", waitAtMost = "0s")
		void hold(String key, CountDownLatch entered, CountDownLatch release) {
			this.calls.incrementAndGet();
			entered.countDown();
			try {
				release.await(20, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		@DistributedLock(key = "#key", name = "shared", waitAtMost = "0s")
		String tryNow(String key) {
			this.calls.incrementAndGet();
			return "ran " + key;
		}

		@DistributedLock(key = "#key", name = "shared", waitAtMost = "0s", onFailure = OnFailure.SKIP)
		String skipNow(String key) {
			this.calls.incrementAndGet();
			return "ran " + key;
		}

		@DistributedLock(key = "#key", name = "shared", waitAtMost = "0s", onFailure = OnFailure.SKIP)
		Optional<String> skipOptional(String key) {
			this.calls.incrementAndGet();
			return Optional.of("ran " + key);
		}

		@DistributedLock(key = "#ids", name = "shared", waitAtMost = "0s")
		List<String> all(List<String> ids) {
			this.calls.incrementAndGet();
			return CurrentLease.get().orElseThrow().keys();
		}

		@DistributedLock(key = "#ids", name = "shared", waitAtMost = "0s")
		List<String> allArray(String[] ids) {
			return CurrentLease.get().orElseThrow().keys();
		}

		@DistributedLock(key = "#key")
		List<String> currentKeys(String key) {
			return CurrentLease.get().orElseThrow().keys();
		}

		/** Runs until its unrenewed lease has expired and the engine has noticed. */
		@DistributedLock(key = "#key", lease = "2s", renew = false)
		void outlive(String key, boolean fail) {
			Lease lease = CurrentLease.get().orElseThrow();
			await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
			if (fail) {
				throw new IllegalStateException("the method's own failure");
			}
		}

		int calls() {
			return this.calls.get();
		}

	}

	/** The design card's usage, verbatim. */
	static class OrderService {

		private final AtomicInteger paid = new AtomicInteger();

		private volatile Lease lastLease;

		private volatile Duration lastRemaining;

		private volatile boolean lastRedisKeyExisted;

		@DistributedLock(key = "#order.id", lease = "30s")
		public void pay(Order order) {
			this.paid.incrementAndGet();
			this.lastLease = CurrentLease.get().orElseThrow();
			this.lastRemaining = this.lastLease.remaining();
			this.lastRedisKeyExisted = redis.node(0).exists("lock:{" + order.id() + "}");
		}

		int paid() {
			return this.paid.get();
		}

		Lease lastLease() {
			return this.lastLease;
		}

		Duration lastRemaining() {
			return this.lastRemaining;
		}

		boolean lastRedisKeyExisted() {
			return this.lastRedisKeyExisted;
		}

	}

	static class KeyService {

		@DistributedLock(key = "#p0")
		List<String> byIndex(String id, int ignored) {
			return CurrentLease.get().orElseThrow().keys();
		}

		@DistributedLock(key = "#a0")
		List<String> byArgumentIndex(String id) {
			return CurrentLease.get().orElseThrow().keys();
		}

		@DistributedLock(key = "#root.method.name")
		List<String> byMethodName() {
			return CurrentLease.get().orElseThrow().keys();
		}

		@DistributedLock(key = "#root.target.getClass().getSimpleName()")
		List<String> byTarget() {
			return CurrentLease.get().orElseThrow().keys();
		}

		@DistributedLock(key = "@tenant.scoped(#id)")
		List<String> byBean(String id) {
			return CurrentLease.get().orElseThrow().keys();
		}

	}

	static class Tenant {

		public String scoped(String id) {
			return "tenant-7:" + id;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadSpelConfiguration {

		@Bean
		BadSpelService badSpelService() {
			return new BadSpelService();
		}

	}

	static class BadSpelService {

		@DistributedLock(key = "#order.")
		void pay(Order order) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TypoConfiguration {

		@Bean
		TypoService typoService() {
			return new TypoService();
		}

	}

	static class TypoService {

		@DistributedLock(key = "#ordr.id")
		void pay(Order order) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadDurationConfiguration {

		@Bean
		BadDurationService badDurationService() {
			return new BadDurationService();
		}

	}

	static class BadDurationService {

		@DistributedLock(key = "#order.id", lease = "3x")
		void pay(Order order) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SkipPrimitiveConfiguration {

		@Bean
		SkipPrimitiveService skipPrimitiveService() {
			return new SkipPrimitiveService();
		}

	}

	static class SkipPrimitiveService {

		@DistributedLock(key = "'count'", onFailure = OnFailure.SKIP)
		int count() {
			return 1;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ShortLeaseConfiguration {

		@Bean
		ShortLeaseService shortLeaseService() {
			return new ShortLeaseService();
		}

	}

	static class ShortLeaseService {

		@DistributedLock(key = "'short'", lease = "150ms")
		void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ShortHoldConfiguration {

		@Bean
		ShortHoldService shortHoldService() {
			return new ShortHoldService();
		}

	}

	static class ShortHoldService {

		@DistributedLock(key = "'hold'", holdAtMost = "10s")
		void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LongMinimumHoldConfiguration {

		@Bean
		LongMinimumHoldService longMinimumHoldService() {
			return new LongMinimumHoldService();
		}

	}

	static class LongMinimumHoldService {

		@DistributedLock(key = "'hold'", renew = false, holdAtLeast = "40s")
		void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PlainMinimumHoldConfiguration {

		@Bean
		PlainMinimumHoldService plainMinimumHoldService() {
			return new PlainMinimumHoldService();
		}

	}

	static class PlainMinimumHoldService {

		@DistributedLock(name = "plain", key = "'hold'", lease = "10s", renew = false)
		void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MissingBeanConfiguration {

		@Bean
		MissingBeanService missingBeanService() {
			return new MissingBeanService();
		}

	}

	static class MissingBeanService {

		@DistributedLock(key = "@nope.of(#id)")
		void run(String id) {
		}

	}

}
