package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.quorumlock.testing.RedisServer;

/**
 * Masters stalled for a while: each is stopped (SIGSTOP) now and continued (SIGCONT) by a
 * timer after the stall, as a throttled, paused or briefly overloaded process looks to
 * its peers. {@link #close()} continues every master still stopped and stops the timer.
 */
final class Stalls implements AutoCloseable {

	private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "stalls");
		thread.setDaemon(true);
		return thread;
	});

	private final List<RedisServer> stopped = new CopyOnWriteArrayList<>();

	/**
	 * Stop {@code masters} now, and continue them after {@code stall}.
	 * @param stall how long they stay stopped
	 * @param masters the masters to stall, started by the test fixture
	 * @return the timer's continuation, done once they are continued
	 */
	ScheduledFuture<?> stall(Duration stall, List<RedisServer> masters) {
		for (RedisServer master : masters) {
			this.stopped.add(master);
			master.pause();
		}
		return this.timer.schedule(() -> masters.forEach(this::resume), stall.toNanos(), TimeUnit.NANOSECONDS);
	}

	ScheduledFuture<?> stall(Duration stall, RedisServer... masters) {
		return stall(stall, List.of(masters));
	}

	/**
	 * Every {@code period}, stall the next master of {@code masters} in turn for
	 * {@code stall}, until closed.
	 */
	void rotate(Duration stall, Duration period, List<RedisServer> masters) {
		int[] next = { 0 };
		this.timer.scheduleWithFixedDelay(() -> {
			RedisServer master = masters.get(next[0]++ % masters.size());
			stall(stall, master);
		}, 0, period.toNanos(), TimeUnit.NANOSECONDS);
	}

	private void resume(RedisServer master) {
		master.resume();
		this.stopped.remove(master);
	}

	@Override
	public void close() {
		this.timer.shutdownNow();
		try {
			this.timer.awaitTermination(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.stopped.forEach(RedisServer::resume);
		this.stopped.clear();
	}

}
