package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.netty.channel.DefaultEventLoop;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

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

}
