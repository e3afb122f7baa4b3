package io.quorumlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.quorumlock.DistributedLock;
import io.quorumlock.LeaseLostException;
import io.quorumlock.autoconfigure.QuorumLockAutoConfiguration;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The {@code CompletableFuture}, {@code Mono} or {@code Flux} of a locked method ends
 * with {@link LeaseLostException} as soon as the lease is lost, and the method's own
 * stage or publisher is cancelled, instead of waiting for work that no longer holds the
 * lock.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LostLeaseAsyncIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.nodes=" + redis.uris().get(0), "quorumlock.node-timeout=100ms")
		.withUserConfiguration(WorkConfiguration.class);

	@Test
	void theFutureEndsWithTheLossAndTheMethodsStageIsCancelled() {
		this.runner.run((context) -> {
			Work service = context.getBean(Work.class);
			CompletableFuture<String> result = service.neverEnding("a");
			// the method's stage never completes on its own; the 500 ms lease is not
			// renewed
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LeaseLostException.class);
			// cancelled as the loss ends the call, on the thread that found the loss: it
			// may come just after the caller sees the failure
			await().atMost(Duration.ofSeconds(10)).until(() -> service.work().isCancelled());
		});
	}

	@Test
	void theMonoEndsWithTheLossAndTheMethodsPublisherIsCancelled() {
		this.runner.run((context) -> {
			Work service = context.getBean(Work.class);
			CompletableFuture<String> result = service.neverEndingMono("m").toFuture();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LeaseLostException.class);
			await().atMost(Duration.ofSeconds(5)).until(service::monoCancelled);
		});
	}

	@Test
	void theFluxEndsWithTheLossAfterWhatItEmittedAndItsPublisherIsCancelled() {
		this.runner.run((context) -> {
			Work service = context.getBean(Work.class);
			List<String> seen = new CopyOnWriteArrayList<>();
			CompletableFuture<Void> result = service.neverEndingFlux("f").doOnNext(seen::add).then().toFuture();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LeaseLostException.class);
			assertThat(seen).containsExactly("first");
			await().atMost(Duration.ofSeconds(5)).until(service::fluxCancelled);
		});
	}

	static class Work {

		volatile CompletableFuture<String> work;

		final AtomicBoolean monoCancelled = new AtomicBoolean();

		final AtomicBoolean fluxCancelled = new AtomicBoolean();

		// read through these: the bean is a class-based proxy, whose own fields are unset

		public CompletableFuture<String> work() {
			return this.work;
		}

		public boolean monoCancelled() {
			return this.monoCancelled.get();
		}

		public boolean fluxCancelled() {
			return this.fluxCancelled.get();
		}

		@DistributedLock(key = "#key", name = "async-lost", lease = "500ms", renew = false)
		public Mono<String> neverEndingMono(String key) {
			return Mono.<String>never().doOnCancel(() -> this.monoCancelled.set(true));
		}

		@DistributedLock(key = "#key", name = "async-lost", lease = "500ms", renew = false)
		public Flux<String> neverEndingFlux(String key) {
			return Flux.concat(Flux.just("first"), Flux.<String>never()).doOnCancel(() -> this.fluxCancelled.set(true));
		}

		@DistributedLock(key = "#key", name = "async-lost", lease = "500ms", renew = false)
		public CompletableFuture<String> neverEnding(String key) {
			this.work = new CompletableFuture<>();
			return this.work;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WorkConfiguration {

		@Bean
		Work work() {
			return new Work();
		}

	}

}
