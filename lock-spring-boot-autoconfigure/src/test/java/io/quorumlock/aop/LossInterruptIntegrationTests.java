package io.quorumlock.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLock;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.autoconfigure.QuorumLockAutoConfiguration;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @DistributedLock(interruptOnLoss = true)}: a blocking call the method is in ends
 * when the lease is lost, the caller gets the {@link LeaseLostException} with the
 * method's own failure suppressed, and the interrupt never outlives the call. The lease
 * is lost by running out unrenewed; the method blocks on a latch nobody counts down, so
 * only the interrupt can end it before the test's own bound.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LossInterruptIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(QuorumLockAutoConfiguration.class))
		.withPropertyValues("quorumlock.nodes=" + redis.uris().get(0), "quorumlock.node-timeout=100ms")
		.withUserConfiguration(WorkerConfiguration.class);

	@Test
	void aLossInterruptsTheBlockingCallAndTheCallerGetsTheLoss() {
		this.runner.run((context) -> {
			Worker worker = context.getBean(Worker.class);
			assertThatExceptionOfType(LeaseLostException.class).isThrownBy(worker::blockUntilInterrupted)
				.withMessageContaining("the method was interrupted")
				.satisfies((lost) -> assertThat(lost.getSuppressed())
					.anySatisfy((suppressed) -> assertThat(suppressed).hasCauseInstanceOf(InterruptedException.class)));
			assertThat(worker.wasInterrupted()).isTrue();
			assertThat(Thread.currentThread().isInterrupted()).as("the interrupt stays inside the call").isFalse();
		});
	}

	@Test
	void aMethodThatEndsWhileTheLeaseIsValidIsNeverInterruptedLater() {
		this.runner.run((context) -> {
			Worker worker = context.getBean(Worker.class);
			Lease lease = worker.returnAtOnce();
			assertThat(lease.isValid()).isFalse(); // released
			assertThat(Thread.currentThread().isInterrupted()).isFalse();
			// the lease's loss stage never completes for a released lease; nothing is
			// armed
			// any more either way
			assertThat(lease.whenLost().toCompletableFuture().isDone()).isFalse();
		});
	}

	@Test
	void withoutTheAttributeALossDoesNotInterrupt() {
		this.runner.run((context) -> {
			Worker worker = context.getBean(Worker.class);
			assertThatExceptionOfType(LeaseLostException.class).isThrownBy(worker::waitOutTheLeaseUninterrupted);
			assertThat(worker.wasInterrupted()).isFalse();
		});
	}

	@Test
	void anAsynchronousMethodWithTheAttributeStopsTheStartUp() {
		this.runner.withUserConfiguration(AsyncWorkerConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.isInstanceOf(DistributedLockDeclarationException.class)
				.hasMessageContaining("interruptOnLoss")
				.hasMessageContaining("applies only to a method that runs on the calling thread");
		});
	}

	static class Worker {

		private volatile boolean interrupted;

		/** Read through the proxy, which has fields of its own. */
		public boolean wasInterrupted() {
			return this.interrupted;
		}

		@DistributedLock(key = "'interrupted-work'", lease = "400ms", renew = false, interruptOnLoss = true)
		public void blockUntilInterrupted() {
			try {
				new CountDownLatch(1).await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				this.interrupted = true;
				throw new IllegalStateException("work stopped", ex);
			}
		}

		@DistributedLock(key = "'quick-work'", lease = "400ms", renew = false, interruptOnLoss = true)
		public Lease returnAtOnce() {
			return CurrentLease.require();
		}

		@DistributedLock(key = "'plain-work'", lease = "400ms", renew = false)
		public void waitOutTheLeaseUninterrupted() {
			Lease lease = CurrentLease.require();
			AtomicBoolean lost = new AtomicBoolean();
			// ends when the loss is known, by the stage rather than by an interrupt
			lease.whenLost().thenRun(() -> lost.set(true)).toCompletableFuture().join();
			this.interrupted = Thread.currentThread().isInterrupted();
		}

	}

	static class AsyncWorker {

		@DistributedLock(key = "'async-work'", interruptOnLoss = true)
		public CompletableFuture<String> run() {
			return CompletableFuture.completedFuture("done");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WorkerConfiguration {

		@Bean
		Worker worker() {
			return new Worker();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AsyncWorkerConfiguration {

		@Bean
		AsyncWorker asyncWorker() {
			return new AsyncWorker();
		}

	}

}
