package io.quorumlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
import io.quorumlock.OnFailure;
import io.quorumlock.autoconfigure.QuorumLockAutoConfiguration;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;
import io.quorumlock.autoconfigure.BoundedWait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code holdAtLeast} through the aspect, for each return type: a method that returns
 * before the minimum hold leaves its key on the nodes (TTL cut to the rest of the hold),
 * so a second call with {@code onFailure = SKIP} is skipped; the configured
 * {@code quorumlock.hold-at-least} applies to a method that does not set it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HoldAtLeastAspectIntegrationTests {

	private static final long HOLD_MILLIS = 20_000;

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.nodes=" + String.join(",", redis.uris()), "quorumlock.rejoin-delay=0s",
				BoundedWait.NODE_TIMEOUT)
		.withUserConfiguration(JobConfiguration.class);

	private static void assertHeldForTheRestOfTheHold(String redisKey) {
		for (RedisServer node : redis.nodes()) {
			await("hold on " + node).atMost(Duration.ofSeconds(5))
				.until(() -> node.pttl(redisKey) > 0 && node.pttl(redisKey) <= HOLD_MILLIS);
		}
	}

	@Test
	void blockingMethodKeepsTheLockAfterItReturns() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.blocking()).isEqualTo("ran");
			assertHeldForTheRestOfTheHold("lock:report:{blocking}");
			assertThat(jobs.blocking()).isNull();
			assertThat(jobs.runs()).isEqualTo(1);
		});
	}

	@Test
	void completableFutureKeepsTheLockAfterItCompletes() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.future().get(10, TimeUnit.SECONDS)).isEqualTo("ran");
			assertHeldForTheRestOfTheHold("lock:report:{future}");
			assertThat(jobs.future().get(10, TimeUnit.SECONDS)).isNull();
			assertThat(jobs.runs()).isEqualTo(1);
		});
	}

	@Test
	void monoKeepsTheLockAfterItCompletes() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.mono().block(Duration.ofSeconds(10))).isEqualTo("ran");
			assertHeldForTheRestOfTheHold("lock:report:{mono}");
			assertThat(jobs.mono().block(Duration.ofSeconds(10))).isNull();
			assertThat(jobs.runs()).isEqualTo(1);
		});
	}

	@Test
	void fluxKeepsTheLockAfterItCompletes() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.flux().collectList().block(Duration.ofSeconds(10))).containsExactly("a", "b");
			assertHeldForTheRestOfTheHold("lock:report:{flux}");
			assertThat(jobs.flux().collectList().block(Duration.ofSeconds(10))).isEmpty();
			assertThat(jobs.runs()).isEqualTo(1);
		});
	}

	@Test
	void configuredHoldAtLeastAppliesToMethodsThatDoNotSetIt() {
		this.runner.withPropertyValues("quorumlock.instances.configured.hold-at-least=20s").run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.configured()).isEqualTo("ran");
			assertHeldForTheRestOfTheHold("lock:configured:{job}");
			assertThat(jobs.configured()).isNull();
		});
	}

	@Test
	void withoutHoldAtLeastTheKeyGoesAtOnce() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.configured()).isEqualTo("ran");
			for (RedisServer node : redis.nodes()) {
				await().atMost(Duration.ofSeconds(5)).until(() -> !node.exists("lock:configured:{job}"));
			}
			assertThat(jobs.configured()).isEqualTo("ran");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class JobConfiguration {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	static class Jobs {

		private final AtomicInteger runs = new AtomicInteger();

		int runs() {
			return this.runs.get();
		}

		@DistributedLock(name = "report", key = "'blocking'", holdAtLeast = "20s", onFailure = OnFailure.SKIP)
		String blocking() {
			this.runs.incrementAndGet();
			return "ran";
		}

		@DistributedLock(name = "report", key = "'future'", holdAtLeast = "20s", onFailure = OnFailure.SKIP)
		CompletableFuture<String> future() {
			this.runs.incrementAndGet();
			return CompletableFuture.supplyAsync(() -> "ran");
		}

		@DistributedLock(name = "report", key = "'mono'", holdAtLeast = "20s", onFailure = OnFailure.SKIP)
		Mono<String> mono() {
			return Mono.fromCallable(() -> {
				this.runs.incrementAndGet();
				return "ran";
			});
		}

		@DistributedLock(name = "report", key = "'flux'", holdAtLeast = "20s", onFailure = OnFailure.SKIP)
		Flux<String> flux() {
			return Flux.defer(() -> {
				this.runs.incrementAndGet();
				return Flux.fromIterable(List.of("a", "b"));
			});
		}

		@DistributedLock(name = "configured", key = "'job'", onFailure = OnFailure.SKIP)
		String configured() {
			return "ran";
		}

	}

}
