package io.quorumlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.CurrentLease;
import io.quorumlock.Lease;
import io.quorumlock.LockListener;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Which thread runs what: re-entry is scoped to a call, never to a pool thread that once
 * acquired; callers' continuations never run on a Redis I/O thread, and blocking calls
 * made on one fail fast; listeners run off the threads that renew leases.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ThreadScopeIntegrationTests {

	static QuorumLockEngine engine(RedisServers redis, LockListener... listeners) {
		QuorumLockEngine.Builder builder = QuorumLockEngine.builder()
			.nodes(redis.uris())
			// not a test of timeouts: room for a loaded machine's answers, below a third
			// of
			// the shortest lease here
			.nodeTimeout(Duration.ofMillis(500))
			.rejoinDelay(Duration.ZERO);
		for (LockListener listener : listeners) {
			builder.listener(listener);
		}
		return builder.build();
	}

	abstract static class Scenarios {

		QuorumLockEngine locks;

		QuorumLockEngine otherProcess;

		String key;

		abstract RedisServers redis();

		@BeforeEach
		void start() {
			this.locks = engine(redis());
			this.otherProcess = engine(redis());
			this.key = "k" + UUID.randomUUID();
		}

		@AfterEach
		void close() {
			this.locks.close();
			this.otherProcess.close();
		}

		LockRequest request() {
			return LockRequest.of(this.key).lease(Duration.ofSeconds(10));
		}

		@Test
		void leaseHandedOffByAPoolThreadIsNotReenteredByItsNextTask() throws Exception {
			ExecutorService pool = Executors.newSingleThreadExecutor();
			ExecutorService elsewhere = Executors.newSingleThreadExecutor();
			try {
				CountDownLatch finish = new CountDownLatch(1);
				// task 1 acquires on the pool thread and hands the work (and the lease)
				// on to another thread, which holds it until told to finish
				CompletableFuture<Void> work = CompletableFuture.supplyAsync(() -> this.locks.acquire(request()), pool)
					.thenAcceptAsync((lease) -> {
						try {
							finish.await(30, TimeUnit.SECONDS);
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
						}
						lease.release();
					}, elsewhere);
				// task 2, unrelated, on the same pool thread, while task 1's lease is
				// held
				boolean reentered = CompletableFuture.supplyAsync(() -> this.locks.tryAcquire(request()), pool)
					.get(20, TimeUnit.SECONDS)
					.map((lease) -> {
						lease.release();
						return true;
					})
					.orElse(false);
				finish.countDown();
				work.get(20, TimeUnit.SECONDS);
				assertThat(reentered).as("an unrelated task re-entered a lease it never held").isFalse();
			}
			finally {
				pool.shutdownNow();
				elsewhere.shutdownNow();
			}
		}

		@Test
		void leaseReleasedOnAnotherThreadIsTakenAfreshByItsFirstThread() throws Exception {
			ExecutorService pool = Executors.newSingleThreadExecutor();
			try {
				Lease lease = pool.submit(() -> this.locks.acquire(request())).get(20, TimeUnit.SECONDS);
				lease.release(); // on the test thread
				Lease again = pool.submit(() -> this.locks.acquire(request())).get(20, TimeUnit.SECONDS);
				assertThat(again).isInstanceOf(RedisLease.class);
				assertThat(this.otherProcess.tryAcquire(request())).isEmpty();
				again.release();
			}
			finally {
				pool.shutdownNow();
			}
		}

		@Test
		void executeIsReentrantWithinItsAction() {
			int result = this.locks.execute(request(), () -> {
				assertThat(CurrentLease.get()).isPresent();
				try (Lease inner = this.locks.acquire(request())) {
					assertThat(inner).isInstanceOf(ReentrantHold.class);
				}
				return this.locks.execute(request(), () -> 42);
			});
			assertThat(result).isEqualTo(42);
			assertThat(this.otherProcess.tryAcquire(request())).hasValueSatisfying(Lease::release);
		}

		@Test
		void fencingTokenInAContinuationOfAcquireAsync() throws Exception {
			CompletableFuture<Long> token = this.locks.acquireAsync(request()).thenApply((lease) -> {
				try (lease) {
					return lease.fencingToken();
				}
			});
			assertThat(token.get(20, TimeUnit.SECONDS)).isPositive();
		}

		@Test
		void fencingTokenAsyncNeverBlocks() throws Exception {
			Lease lease = this.locks.acquireAsync(request()).get(20, TimeUnit.SECONDS);
			long token = lease.fencingTokenAsync().get(20, TimeUnit.SECONDS);
			assertThat(lease.fencingToken()).isEqualTo(token);
			lease.release();
		}

		@Test
		void continuationsOfAcquireAsyncRunOffTheIoThreads() throws Exception {
			AtomicReference<Thread> ran = new AtomicReference<>();
			this.locks.acquireAsync(request()).thenAccept((lease) -> {
				ran.set(Thread.currentThread());
				lease.releaseAsync();
			}).get(20, TimeUnit.SECONDS);
			assertThat(ran.get()).isNotInstanceOf(io.netty.util.concurrent.FastThreadLocalThread.class);
		}

		@Test
		void blockingCallOnALettuceThreadFailsFast() throws Exception {
			Lease held = this.locks.acquire(request().name("fenced"));
			Lease unrenewed = this.locks.acquire(request().name("extended").renew(false));
			CompletableFuture<Throwable> acquiring = new CompletableFuture<>();
			CompletableFuture<Throwable> fencing = new CompletableFuture<>();
			CompletableFuture<Throwable> extending = new CompletableFuture<>();
			// a pub/sub listener always runs on the connection's I/O thread
			RedisPubSubAdapter<String, String> listener = new RedisPubSubAdapter<>() {

				@Override
				public void message(String channel, String message) {
					acquiring.complete(failureOf(
							() -> ThreadScopeIntegrationTests.Scenarios.this.locks.acquire(request()).release()));
					fencing.complete(failureOf(held::fencingToken));
					extending.complete(failureOf(() -> unrenewed.extend(Duration.ofSeconds(20))));
				}

			};
			RedisClient client = RedisClient.create(redis().uris().get(0));
			try (StatefulRedisPubSubConnection<String, String> subscriber = client.connectPubSub();
					StatefulRedisConnection<String, String> publisher = client.connect()) {
				subscriber.addListener(listener);
				subscriber.sync().subscribe("c" + this.key);
				publisher.sync().publish("c" + this.key, "go");
				assertThat(acquiring.get(20, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
					.hasMessageContaining("is a blocking call and was made on thread")
					.hasMessageContaining("acquireAsync");
				assertThat(fencing.get(20, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
					.hasMessageContaining("fencingTokenAsync()");
				assertThat(extending.get(20, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
					.hasMessageContaining("extendAsync()");
			}
			finally {
				client.shutdown();
			}
			assertThat(held.fencingTokenAsync().get(20, TimeUnit.SECONDS)).isPositive();
			assertThat(unrenewed.extendAsync(Duration.ofSeconds(20)).get(20, TimeUnit.SECONDS)).isTrue();
			held.release();
			unrenewed.release();
		}

		private static Throwable failureOf(Runnable call) {
			try {
				call.run();
				return new AssertionError("no failure on " + Thread.currentThread());
			}
			catch (Throwable ex) {
				return ex;
			}
		}

	}

	@Nested
	class SingleNode extends Scenarios {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(1);

		@Override
		RedisServers redis() {
			return redis;
		}

	}

	@Nested
	class ThreeNodes extends Scenarios {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(3);

		@Override
		RedisServers redis() {
			return redis;
		}

	}

	@Nested
	class SlowListeners {

		@RegisterExtension
		static final RedisServers redis = RedisServers.start(1);

		@Test
		void listenerBlockedInOnRenewedDoesNotDelayAnotherLeasesRenewal() throws Exception {
			String stuckKey = "stuck" + UUID.randomUUID();
			CountDownLatch blocked = new CountDownLatch(1);
			CountDownLatch unblock = new CountDownLatch(1);
			LockListener slow = new LockListener() {

				@Override
				public void onRenewed(LockRequest request, Lease lease) {
					if (request.keys().contains(stuckKey)) {
						blocked.countDown();
						try {
							unblock.await(30, TimeUnit.SECONDS);
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
						}
					}
				}

			};
			try (QuorumLockEngine locks = engine(redis, slow)) {
				Duration lease = DistributedLockRegistryContract.SHORT_LEASE;
				RedisLease other = (RedisLease) locks.acquire(LockRequest.of("other" + UUID.randomUUID()).lease(lease));
				Lease stuck = locks.acquire(LockRequest.of(stuckKey).lease(lease));
				assertThat(blocked.await(20, TimeUnit.SECONDS)).isTrue();
				long first = other.validUntil();
				// while the listener is stuck, the other lease keeps being renewed: its
				// validity moves on by several leases
				await().atMost(Duration.ofSeconds(20))
					.until(() -> !other.isValid() || other.validUntil() - first > 3 * lease.toNanos());
				assertThat(other.isValid()).as("renewed while a listener was stuck").isTrue();
				// listeners hear of releases before the releaser returns
				unblock.countDown();
				other.release();
				stuck.release();
			}
			finally {
				unblock.countDown();
			}
		}

	}

}
