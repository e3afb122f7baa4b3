package io.quorumlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.OnFailure;
import io.quorumlock.autoconfigure.BoundedWait;
import io.quorumlock.autoconfigure.QuorumLockAutoConfiguration;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} on methods returning {@code Mono}, {@code Flux} and
 * {@code CompletableFuture}: the lock is held until the result completes, released at
 * once on cancellation, and not taken before subscription.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DistributedLockAsyncIntegrationTests {

	private static final Duration SOON = Duration.ofSeconds(2);

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.nodes=" + redis.uris().get(0), BoundedWait.NODE_TIMEOUT)
		.withUserConfiguration(AsyncConfiguration.class);

	@Test
	void monoHoldsTheLockUntilItCompletes() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CountDownLatch entered = new CountDownLatch(1);
			CompletableFuture<String> result = service.slowMono("m", entered).toFuture();
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> service.tryNow("m"));
			assertThat(result).isNotDone();
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("mono m");
			// released before the value was emitted
			assertThat(service.tryNow("m")).isEqualTo("ran m");
		});
	}

	@Test
	void completableFutureHoldsTheLockUntilItCompletes() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CountDownLatch entered = new CountDownLatch(1);
			CompletableFuture<String> result = service.slowFuture("cf", entered);
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> service.tryNow("cf"));
			assertThat(result).isNotDone();
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("future cf");
			assertThat(service.tryNow("cf")).isEqualTo("ran cf");
		});
	}

	@Test
	void fluxEmitsItsItemsUnderTheLockAndReleasesOnCompletion() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			assertThat(service.items("i").collectList().block(Duration.ofSeconds(10))).containsExactly("i", "i", "i");
			assertThat(service.tryNow("i")).isEqualTo("ran i");
		});
	}

	@Test
	void cancellingAFluxReleasesAtOnce() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CountDownLatch entered = new CountDownLatch(1);
			Disposable subscription = service.endless("f", entered).subscribe();
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> service.tryNow("f"));
			subscription.dispose();
			await().atMost(SOON)
				.ignoreException(LockNotAcquiredException.class)
				.untilAsserted(() -> assertThat(service.tryNow("f")).isEqualTo("ran f"));
		});
	}

	@Test
	void cancellingAMonoReleasesAtOnce() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CountDownLatch entered = new CountDownLatch(1);
			Disposable subscription = service.never("n", entered).subscribe();
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(redis.node(0).exists("lock:async:{n}")).isTrue();
			subscription.dispose();
			await().atMost(SOON).until(() -> !redis.node(0).exists("lock:async:{n}"));
			assertThat(service.tryNow("n")).isEqualTo("ran n");
		});
	}

	@Test
	void cancellingAFutureReleasesAtOnce() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CountDownLatch entered = new CountDownLatch(1);
			CompletableFuture<String> result = service.neverFuture("nf", entered);
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			result.cancel(false);
			await().atMost(SOON).until(() -> !redis.node(0).exists("lock:async:{nf}"));
			assertThat(service.tryNow("nf")).isEqualTo("ran nf");
		});
	}

	@Test
	void nothingIsLockedBeforeSubscription() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CountDownLatch entered = new CountDownLatch(1);
			Mono<String> assembled = service.slowMono("lazy", entered);
			assertThat(entered.getCount()).isOne();
			assertThat(redis.node(0).exists("lock:async:{lazy}")).isFalse();
			assertThat(service.tryNow("lazy")).isEqualTo("ran lazy");
			assertThat(assembled.block(Duration.ofSeconds(10))).isEqualTo("mono lazy");
			assertThat(entered.getCount()).isZero();
		});
	}

	@Test
	void cancellingWhileWaitingGivesUpTheAcquisition() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			Lease held = registry.acquire(LockRequest.of("w").name("async"));
			Disposable waiting = service.waiting("w").subscribe();
			waiting.dispose();
			held.release();
			CompletableFuture<String> other = CompletableFuture.supplyAsync(() -> service.tryNow("w"));
			assertThat(other.get(10, TimeUnit.SECONDS)).isEqualTo("ran w");
			assertThat(service.waitingRuns()).isZero();
			assertThat(redis.node(0).exists("lock:async:{w}")).isFalse();
		});
	}

	@Test
	void skipGivesEmptyResultsAndThrowFailsThem() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			try (Lease held = registry.acquire(LockRequest.of("s").name("async"))) {
				assertThat(held.isValid()).isTrue();
				assertThat(service.skipMono("s").block(Duration.ofSeconds(10))).isNull();
				assertThat(service.skipFlux("s").collectList().block(Duration.ofSeconds(10))).isEmpty();
				assertThat(service.skipFuture("s").get(10, TimeUnit.SECONDS)).isNull();
				assertThatExceptionOfType(LockNotAcquiredException.class)
					.isThrownBy(() -> service.throwMono("s").block(Duration.ofSeconds(10)));
				assertThatExceptionOfType(ExecutionException.class)
					.isThrownBy(() -> service.throwFuture("s").get(10, TimeUnit.SECONDS))
					.withCauseInstanceOf(LockNotAcquiredException.class);
				assertThat(service.bodyRuns()).isZero();
			}
		});
	}

	@Test
	void methodErrorsAreKeptAndTheLockReleased() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> service.failingMono("e").block(Duration.ofSeconds(10)))
				.withMessage("boom");
			assertThat(service.tryNow("e")).isEqualTo("ran e");
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> service.failingFuture("e").get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(IllegalStateException.class);
			assertThat(service.tryNow("e")).isEqualTo("ran e");
		});
	}

	@Test
	void currentLeaseIsBoundWhileTheMethodAssemblesItsResult() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			assertThat(service.currentKeys("c").block(Duration.ofSeconds(10))).containsExactly("c");
			assertThat(service.currentKeysFuture("c").get(10, TimeUnit.SECONDS)).containsExactly("c");
		});
	}

	@Test
	void reactiveBodyRunsOffTheIoThreadsAndCanAskForItsFencingToken() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			assertThat(service.fencedMono("fm").block(Duration.ofSeconds(20))).startsWith("off-io token ");
			assertThat(service.fencedFuture("ff").get(20, TimeUnit.SECONDS)).startsWith("off-io token ");
		});
	}

	@Test
	void asyncBodyReentersItsOwnLock() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			assertThat(service.reenteringFuture("rf", service).get(20, TimeUnit.SECONDS)).isEqualTo("ran rf");
			assertThat(service.reenteringMono("rm", service).block(Duration.ofSeconds(20))).isEqualTo("ran rm");
			assertThat(service.nestedFuture("nf2", service).get(20, TimeUnit.SECONDS)).containsExactly("nf2");
			// and the lock is free afterwards
			assertThat(service.tryNow("rf")).isEqualTo("ran rf");
			assertThat(service.tryNow("nf2")).isEqualTo("ran nf2");
		});
	}

	@Test
	void unusableKeyFailsTheResultAndTheMethodDoesNotRun() {
		this.runner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			Mono<String> mono = service.skipMono(null);
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> mono.block(Duration.ofSeconds(10)))
				.withMessageContaining("AsyncService.skipMono(String): key \"#key\" evaluated to null");
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> service.skipFuture(null).get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockKeyException.class);
			assertThat(service.bodyRuns()).isZero();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class AsyncConfiguration {

		@Bean
		AsyncService asyncService() {
			return new AsyncService();
		}

	}

	static class AsyncService {

		private final AtomicInteger waitingRuns = new AtomicInteger();

		private final AtomicInteger bodyRuns = new AtomicInteger();

		@DistributedLock(key = "#key", name = "async", waitAtMost = "0s")
		String tryNow(String key) {
			return "ran " + key;
		}

		@DistributedLock(key = "#key", name = "async")
		Mono<String> slowMono(String key, CountDownLatch entered) {
			entered.countDown();
			return Mono.delay(Duration.ofMillis(500)).thenReturn("mono " + key);
		}

		@DistributedLock(key = "#key", name = "async")
		CompletableFuture<String> slowFuture(String key, CountDownLatch entered) {
			entered.countDown();
			return CompletableFuture.supplyAsync(() -> "future " + key,
					CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS));
		}

		@DistributedLock(key = "#key", name = "async")
		Flux<String> items(String key) {
			return Flux.just(key, key, key);
		}

		@DistributedLock(key = "#key", name = "async")
		Flux<Long> endless(String key, CountDownLatch entered) {
			entered.countDown();
			return Flux.interval(Duration.ofMillis(20));
		}

		@DistributedLock(key = "#key", name = "async")
		Mono<String> never(String key, CountDownLatch entered) {
			entered.countDown();
			return Mono.never();
		}

		@DistributedLock(key = "#key", name = "async")
		CompletableFuture<String> neverFuture(String key, CountDownLatch entered) {
			entered.countDown();
			return new CompletableFuture<>();
		}

		@DistributedLock(key = "#key", name = "async", waitAtMost = "10s")
		Mono<String> waiting(String key) {
			this.waitingRuns.incrementAndGet();
			return Mono.just(key);
		}

		@DistributedLock(key = "#key", name = "async", waitAtMost = "0s", onFailure = OnFailure.SKIP)
		Mono<String> skipMono(String key) {
			this.bodyRuns.incrementAndGet();
			return Mono.just(key);
		}

		@DistributedLock(key = "#key", name = "async", waitAtMost = "0s", onFailure = OnFailure.SKIP)
		Flux<String> skipFlux(String key) {
			this.bodyRuns.incrementAndGet();
			return Flux.just(key);
		}

		@DistributedLock(key = "#key", name = "async", waitAtMost = "0s", onFailure = OnFailure.SKIP)
		CompletableFuture<String> skipFuture(String key) {
			this.bodyRuns.incrementAndGet();
			return CompletableFuture.completedFuture(key);
		}

		@DistributedLock(key = "#key", name = "async", waitAtMost = "0s")
		Mono<String> throwMono(String key) {
			this.bodyRuns.incrementAndGet();
			return Mono.just(key);
		}

		@DistributedLock(key = "#key", name = "async", waitAtMost = "0s")
		CompletableFuture<String> throwFuture(String key) {
			this.bodyRuns.incrementAndGet();
			return CompletableFuture.completedFuture(key);
		}

		@DistributedLock(key = "#key", name = "async")
		Mono<String> failingMono(String key) {
			return Mono.error(new IllegalStateException("boom"));
		}

		@DistributedLock(key = "#key", name = "async")
		CompletableFuture<String> failingFuture(String key) {
			throw new IllegalStateException("boom");
		}

		@DistributedLock(key = "#key", name = "async")
		Mono<List<String>> currentKeys(String key) {
			return Mono.just(CurrentLease.get().orElseThrow().keys());
		}

		@DistributedLock(key = "#key", name = "async")
		CompletableFuture<List<String>> currentKeysFuture(String key) {
			return CompletableFuture.completedFuture(CurrentLease.get().orElseThrow().keys());
		}

		@DistributedLock(key = "#key", name = "async")
		Mono<String> fencedMono(String key) {
			return Mono.just(offIo() + " token " + CurrentLease.get().orElseThrow().fencingToken());
		}

		@DistributedLock(key = "#key", name = "async")
		CompletableFuture<String> fencedFuture(String key) {
			return CompletableFuture
				.completedFuture(offIo() + " token " + CurrentLease.get().orElseThrow().fencingToken());
		}

		private static String offIo() {
			return (Thread.currentThread() instanceof io.netty.util.concurrent.FastThreadLocalThread)
					? "on-io " + Thread.currentThread().getName() : "off-io";
		}

		@DistributedLock(key = "#key", name = "async", waitAtMost = "0s")
		CompletableFuture<String> reenteringFuture(String key, AsyncService self) {
			return CompletableFuture.completedFuture(self.tryNow(key));
		}

		@DistributedLock(key = "#key", name = "async", waitAtMost = "0s")
		Mono<String> reenteringMono(String key, AsyncService self) {
			return Mono.just(self.tryNow(key));
		}

		@DistributedLock(key = "#key", name = "async", waitAtMost = "0s")
		CompletableFuture<List<String>> nestedFuture(String key, AsyncService self) {
			return self.currentKeysFuture(key);
		}

		int waitingRuns() {
			return this.waitingRuns.get();
		}

		int bodyRuns() {
			return this.bodyRuns.get();
		}

	}

}
