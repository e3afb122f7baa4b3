package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A loaded machine inside the test JVM: plain threads that spin (4 per core) until
 * closed, so that the engine's own threads, Lettuce's event loops and the timers compete
 * for the CPU as they do in a throttled pod or beside a busy neighbour. Daemon threads,
 * stopped and joined by {@link #close()}.
 */
final class BusyThreads implements AutoCloseable {

	private final List<Thread> threads = new ArrayList<>();

	private volatile boolean running = true;

	/** A counter the spinning threads write, so the JIT cannot drop their loops. */
	private volatile long sink;

	private BusyThreads(int count) {
		for (int i = 0; i < count; i++) {
			Thread thread = new Thread(this::spin, "busy-" + i);
			thread.setDaemon(true);
			this.threads.add(thread);
		}
		this.threads.forEach(Thread::start);
	}

	/**
	 * Start four spinning threads per core.
	 * @return the running threads, stopped by {@link #close()}
	 */
	static BusyThreads fourPerCore() {
		return new BusyThreads(4 * Runtime.getRuntime().availableProcessors());
	}

	int size() {
		return this.threads.size();
	}

	private void spin() {
		long n = 0;
		while (this.running) {
			n++;
			if ((n & 0xFFFFF) == 0) {
				this.sink = n;
			}
		}
	}

	@Override
	public void close() {
		this.running = false;
		for (Thread thread : this.threads) {
			try {
				thread.join(TimeUnit.SECONDS.toMillis(10));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

}
