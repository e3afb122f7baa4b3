package io.quorumlock.redis.node;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisURI;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout.ThreadMode;
import reactor.core.publisher.Hooks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link LettuceTransport} does with Lettuce's events after the engine closed.
 */
@org.junit.jupiter.api.Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class LettuceTransportTests {

	@Test
	void aFailedReconnectReportedAfterTheEngineClosedIsDroppedWithoutAnErrorLog() throws Exception {
		CountDownLatch handled = new CountDownLatch(1);
		List<Throwable> dropped = new CopyOnWriteArrayList<>();
		Hooks.onErrorDropped((error) -> {
			dropped.add(error);
			handled.countDown();
		});
		ClosedTimers timers = new ClosedTimers(handled);
		ClientResources resources = DefaultClientResources.create();
		// a port nothing listens on: only the event below matters
		RedisURI uri = RedisURI.create("redis://127.0.0.1:1");
		LettuceTransport transport = new LettuceTransport(uri,
				new LettuceContext(resources, null, Duration.ofSeconds(1), Duration.ofSeconds(1), timers));
		try {
			transport.connect(new Link.Events() {
				@Override
				public void disconnected() {
				}

				@Override
				public void reconnected() {
				}
			});
			resources.eventBus()
				.publish(new ReconnectFailedEvent(new InetSocketAddress("127.0.0.1", 50000),
						new InetSocketAddress("127.0.0.1", 1), new IllegalStateException("WRONGPASS"), 3));
			assertThat(handled.await(10, TimeUnit.SECONDS)).as("the event reached the transport").isTrue();
			assertThat(dropped).as("errors Reactor logs as dropped").isEmpty();
			assertThat(timers.dropped).as("attempts handed to the closed engine's timers").hasValue(1);
		}
		finally {
			transport.close();
			Hooks.resetOnErrorDropped();
			resources.shutdown(0, 2, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
		}
	}

	/**
	 * The timers of an engine that closed: they refuse a task ({@code execute}) or drop
	 * it ({@code runOnScheduler}), as the engine's own do once their scheduler is shut
	 * down.
	 */
	private static final class ClosedTimers implements Timers {

		final AtomicInteger dropped = new AtomicInteger();

		private final CountDownLatch handled;

		ClosedTimers(CountDownLatch handled) {
			this.handled = handled;
		}

		@Override
		public long nanoTime() {
			return System.nanoTime();
		}

		@Override
		public long retryDelayNanos() {
			return 0;
		}

		@Override
		public Future<?> schedule(Runnable task, long delayNanos) {
			throw new RejectedExecutionException("the engine was closed");
		}

		@Override
		public void execute(Runnable task) {
			throw new RejectedExecutionException("the engine was closed");
		}

		@Override
		public void runOnScheduler(Runnable task) {
			this.dropped.incrementAndGet();
			this.handled.countDown();
		}

		@Override
		public Timeout after(long delayNanos, TimerTask task) {
			throw new RejectedExecutionException("the engine was closed");
		}

	}

}
