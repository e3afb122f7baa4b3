package io.quorumlock.aop;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.aop.framework.ProxyFactory;

import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockRequest;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The aspect never runs a method on a lease that is no longer valid when the method is
 * about to run (here: a registry whose grant reaches the aspect only once the lease ran
 * out, as after a long pause of the JVM): the method is not run, the lease is released
 * and the caller gets a {@link LeaseLostException}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InvalidLeaseIntegrationTests {

	/** A node timeout a loaded machine's answers fit in. */
	static final Duration NODE_TIMEOUT = Duration.ofMillis(500);

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	private QuorumLockEngine engine;

	private Service service;

	private final AtomicInteger runs = new AtomicInteger();

	@BeforeEach
	void start() {
		// not the default node timeout: whatever it is, the short lease below must fit
		// three of it, and a loaded machine's answers must fit in it
		this.engine = QuorumLockEngine.builder().nodes(redis.uris()).nodeTimeout(NODE_TIMEOUT).build();
		DistributedLockRegistry late = new LateRegistry(this.engine);
		ProxyFactory factory = new ProxyFactory(new Service(this.runs));
		factory.setProxyTargetClass(true);
		factory.addAdvice(new DistributedLockInterceptor(() -> late, () -> Runnable::run));
		this.service = (Service) factory.getProxy();
	}

	@AfterEach
	void close() {
		this.engine.close();
	}

	@Test
	void blockingMethodIsNotRunOnAnInvalidLease() {
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> this.service.blocking("b"))
			.withMessageContaining("not run");
		assertThat(this.runs).hasValue(0);
		assertThat(redis.node(0).exists("lock:{b}")).isFalse();
		assertThat(this.engine.tryAcquire(LockRequest.of("b"))).hasValueSatisfying(Lease::release);
	}

	@Test
	void asyncMethodIsNotRunOnAnInvalidLease() {
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> this.service.async("c").get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(LeaseLostException.class);
		assertThat(this.runs).hasValue(0);
		assertThat(this.engine.tryAcquire(LockRequest.of("c"))).hasValueSatisfying(Lease::release);
	}

	static class Service {

		private final AtomicInteger runs;

		Service(AtomicInteger runs) {
			this.runs = runs;
		}

		@DistributedLock(key = "#key")
		public String blocking(String key) {
			this.runs.incrementAndGet();
			return key;
		}

		@DistributedLock(key = "#key")
		public CompletableFuture<String> async(String key) {
			this.runs.incrementAndGet();
			return CompletableFuture.completedFuture(key);
		}

	}

	/**
	 * The real engine, with a short unrenewed lease handed over only once it has run out.
	 */
	private record LateRegistry(QuorumLockEngine engine) implements DistributedLockRegistry {

		private static LockRequest shortLease(LockRequest request) {
			return request.lease(NODE_TIMEOUT.multipliedBy(3).plusMillis(100)).renew(false);
		}

		private static Lease late(Lease lease) {
			await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
			return lease;
		}

		@Override
		public Lease acquire(LockRequest request) {
			return late(this.engine.acquire(shortLease(request)));
		}

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			return this.engine.tryAcquire(shortLease(request)).map(LateRegistry::late);
		}

		@Override
		public CompletableFuture<Lease> acquireAsync(LockRequest request) {
			return this.engine.acquireAsync(shortLease(request)).thenApplyAsync(LateRegistry::late);
		}

		@Override
		public <T> T execute(LockRequest request, Callable<T> action) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Lock asLock(String key) {
			throw new UnsupportedOperationException();
		}

	}

}
