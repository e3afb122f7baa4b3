package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockMode;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.OnFailure;
import io.quorumlock.testing.EtcdCluster;
import io.quorumlock.testing.EtcdMembers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

/**
 * {@code @DistributedLock} on etcd, unchanged for the application: mutual exclusion
 * across two application contexts (two instances), the fencing token through
 * {@link CurrentLease}, {@code holdAtLeast} with {@code SKIP}, a
 * {@code CompletableFuture} and a {@code Mono} held until they complete, shared locks and
 * permits, and the problem detail a caller gets when the lock is held elsewhere.
 */
@EtcdCluster(members = 3)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdDistributedLockIntegrationTests {

	static EtcdMembers etcd;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
		.withUserConfiguration(JobsConfiguration.class);

	@BeforeEach
	void reset() {
		Jobs.reset();
	}

	private ApplicationContextRunner onEtcd() {
		// a loaded build machine: each request may take longer than the default 1 s
		return this.runner.withPropertyValues("quorumlock.etcd.endpoints=" + String.join(",", etcd.endpoints()),
				"quorumlock.etcd.request-timeout=2s");
	}

	@Test
	void twoInstancesNeverRunTheMethodAtOnce() {
		onEtcd().run((first) -> onEtcd().run((second) -> {
			Jobs one = first.getBean(Jobs.class);
			Jobs two = second.getBean(Jobs.class);
			ExecutorService threads = Executors.newFixedThreadPool(8);
			try {
				List<Future<?>> calls = new ArrayList<>();
				for (int i = 0; i < 40; i++) {
					Jobs jobs = (i % 2 == 0) ? one : two;
					calls.add(threads.submit(jobs::increment));
				}
				for (Future<?> call : calls) {
					call.get(60, TimeUnit.SECONDS);
				}
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(Jobs.counter).isEqualTo(40);
			assertThat(Jobs.overlaps.get()).isZero();
		}));
	}

	@Test
	void theFencingTokenGrowsWithEachHolder() {
		onEtcd().run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			long first = jobs.token();
			long second = jobs.token();
			assertThat(first).isPositive();
			assertThat(second).isGreaterThan(first);
		});
	}

	@Test
	void holdAtLeastKeepsTheLockSoTheNextTickIsSkipped() {
		onEtcd().run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.tick()).isEqualTo("ran");
			assertThat(jobs.tick()).isNull();
			assertThat(Jobs.ticks.get()).isOne();
			assertThat(context.getBean(DistributedLockRegistry.class).tryAcquire(LockRequest.of("tick").name("report")))
				.isEmpty();
		});
	}

	@Test
	void aCompletableFutureHoldsTheLockUntilItCompletes() {
		onEtcd().run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			CompletableFuture<String> result = jobs.later();
			await().atMost(Duration.ofSeconds(10)).until(() -> Jobs.started.getCount() == 0);
			assertThat(registry.tryAcquire(LockRequest.of("later").name("async"))).isEmpty();
			Jobs.finish.countDown();
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				try (Lease lease = registry.tryAcquire(LockRequest.of("later").name("async")).orElse(null)) {
					return lease != null;
				}
			});
		});
	}

	@Test
	void aMonoHoldsTheLockUntilItCompletes() {
		onEtcd().run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			CompletableFuture<String> result = jobs.mono().toFuture();
			await().atMost(Duration.ofSeconds(10)).until(() -> Jobs.started.getCount() == 0);
			assertThat(registry.tryAcquire(LockRequest.of("mono").name("async"))).isEmpty();
			Jobs.finish.countDown();
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
		});
	}

	@Test
	void sharedHoldersCoexistAndExcludeAnExclusiveOne() {
		onEtcd().run((context) -> {
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			Jobs jobs = context.getBean(Jobs.class);
			try (Lease reader = registry.acquire(LockRequest.of("catalog").name("read").mode(LockMode.SHARED))) {
				assertThat(jobs.read()).isEqualTo("read");
				assertThat(registry.tryAcquire(LockRequest.of("catalog").name("read"))).isEmpty();
			}
		});
	}

	@Test
	void permitsLetThatManyHoldersIn() {
		onEtcd().run((context) -> {
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			Jobs jobs = context.getBean(Jobs.class);
			try (Lease one = registry.acquire(LockRequest.of("exports").name("slots").permits(2))) {
				assertThat(jobs.slot()).isEqualTo("slot");
				try (Lease two = registry.acquire(LockRequest.of("exports").name("slots").permits(2))) {
					assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(jobs::slot);
				}
			}
		});
	}

	@Test
	void aLockHeldElsewhereAnswers423NamingNoMember() {
		new WebApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(QuorumLockAutoConfiguration.class, QuorumLockWebAutoConfiguration.class))
			.withUserConfiguration(Payments.class)
			.withPropertyValues("quorumlock.etcd.endpoints=" + String.join(",", etcd.endpoints()),
					"quorumlock.etcd.request-timeout=2s")
			.run((context) -> {
				DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
				try (Lease held = registry.acquire(LockRequest.of("7").name("payments"))) {
					MvcResult result = MockMvcBuilders.webAppContextSetup(context)
						.build()
						.perform(post("/pay/7"))
						.andReturn();
					assertThat(result.getResponse().getStatus()).isEqualTo(423);
					assertThat(result.getResponse().getContentType()).startsWith("application/problem+json");
					assertThat(result.getResponse().getContentAsString())
						.contains("lock 'payments' key 'lock:payments:{7}'")
						.doesNotContain("127.0.0.1");
				}
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class JobsConfiguration {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	static class Jobs {

		static volatile int counter;

		static final AtomicInteger inside = new AtomicInteger();

		static final AtomicInteger overlaps = new AtomicInteger();

		static final AtomicInteger ticks = new AtomicInteger();

		static volatile CountDownLatch started = new CountDownLatch(1);

		static volatile CountDownLatch finish = new CountDownLatch(1);

		static void reset() {
			counter = 0;
			inside.set(0);
			overlaps.set(0);
			ticks.set(0);
			started = new CountDownLatch(1);
			finish = new CountDownLatch(1);
		}

		@DistributedLock(name = "counter", key = "'shared'", waitAtMost = "60s")
		public void increment() {
			if (inside.incrementAndGet() != 1) {
				overlaps.incrementAndGet();
			}
			int read = counter;
			Thread.yield();
			counter = read + 1;
			inside.decrementAndGet();
		}

		@DistributedLock(name = "fenced", key = "'row'")
		public long token() {
			return CurrentLease.require().fencingToken();
		}

		@DistributedLock(name = "report", key = "'tick'", holdAtLeast = "30s", onFailure = OnFailure.SKIP)
		public String tick() {
			ticks.incrementAndGet();
			return "ran";
		}

		@DistributedLock(name = "async", key = "'later'")
		public CompletableFuture<String> later() {
			return CompletableFuture.supplyAsync(() -> {
				started.countDown();
				await(finish);
				return "done";
			});
		}

		@DistributedLock(name = "async", key = "'mono'")
		public Mono<String> mono() {
			return Mono.fromCallable(() -> {
				started.countDown();
				await(finish);
				return "done";
			}).subscribeOn(Schedulers.boundedElastic());
		}

		@DistributedLock(name = "read", key = "'catalog'", mode = LockMode.SHARED)
		public String read() {
			return "read";
		}

		@DistributedLock(name = "slots", key = "'exports'", permits = 2)
		public String slot() {
			return "slot";
		}

		private static void await(CountDownLatch latch) {
			try {
				latch.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class Payments {

		@Bean
		PaymentController paymentController() {
			return new PaymentController();
		}

	}

	@RestController
	static class PaymentController {

		@PostMapping("/pay/{id}")
		@DistributedLock(name = "payments", key = "#id")
		public String pay(@PathVariable("id") String id) {
			return "paid";
		}

	}

}
