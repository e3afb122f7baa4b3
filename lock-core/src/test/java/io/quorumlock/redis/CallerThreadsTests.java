package io.quorumlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

import io.netty.channel.DefaultEventLoop;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Which threads callers' code must not run or block on: the engine's own, and every Netty
 * event loop, whatever thread factory made its threads.
 */
class CallerThreadsTests {

	private final CallerThreads threads = new CallerThreads(Runnable::run);

	@Test
	void anEventLoopOnPlainThreadsIsAnEngineThread() throws Exception {
		// an application's own Lettuce resources may make their I/O threads this way
		DefaultEventLoop loop = new DefaultEventLoop(Executors.newSingleThreadExecutor());
		try {
			CompletableFuture<Boolean> onLoop = new CompletableFuture<>();
			loop.execute(() -> onLoop.complete(this.threads.isEngineThread(Thread.currentThread())));
			assertThat(onLoop.get(5, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
		}
	}

	@Test
	void aCallersThreadIsNot() {
		assertThat(this.threads.isEngineThread(Thread.currentThread())).isFalse();
		Thread registered = this.threads.register(new Thread(() -> {
		}));
		assertThat(this.threads.isEngineThread(registered)).isTrue();
	}

	@Test
	void withWorkersToSpareCallersContinueOnTheCommonPool() {
		assertThat(CallerThreads.defaultAsync(3)).isSameAs(ForkJoinPool.commonPool());
	}

	@Test
	void onOneOrTwoCoresAnIdleThreadIsReusedWhereCompletableFutureWouldStartOne() throws Exception {
		Executor own = CallerThreads.defaultAsync(1);
		CallerThreads engine = new CallerThreads(own, true);
		Thread io = engine.register(new Thread(() -> {
		}));
		assertThat(engine.isEngineThread(io)).isTrue();
		Thread first = null;
		for (int i = 0; i < 3; i++) {
			// a future completed on an engine thread reaches the caller from the pool
			CompletableFuture<String> source = new CompletableFuture<>();
			CompletableFuture<Thread> ranOn = engine.handOver(source).thenApply((value) -> Thread.currentThread());
			Thread completer = new Thread(() -> source.complete("lease"));
			engine.register(completer).start();
			Thread thread = ranOn.get(5, TimeUnit.SECONDS);
			assertThat(thread.getName()).startsWith("quorumlock-async-");
			assertThat(thread.isDaemon()).isTrue();
			if (first == null) {
				first = thread;
			}
			assertThat(thread).as("the same idle thread, task after task").isSameAs(first);
			Thread idle = first;
			// idle: waiting for its next task
			await().atMost(Duration.ofSeconds(5)).until(() -> idle.getState() == Thread.State.TIMED_WAITING);
		}
		engine.close();
		assertThat(((ExecutorService) own).awaitTermination(5, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void closingLeavesAnApplicationsExecutorRunning() {
		ExecutorService application = Executors.newSingleThreadExecutor();
		try {
			new CallerThreads(application).close();
			assertThat(application.isShutdown()).isFalse();
		}
		finally {
			application.shutdownNow();
		}
	}

}
