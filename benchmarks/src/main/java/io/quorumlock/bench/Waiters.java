package io.quorumlock.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import io.quorumlock.bench.candidates.Candidate;
import io.quorumlock.bench.candidates.LockClient;

/**
 * The scale scenario of many waiters: {@code Waiters candidate waiters keys rounds
 * capMs} on Java 21+, one master. Each key is first held by a gate (a platform thread);
 * {@code waiters} virtual threads (waiter i on key i mod keys) then lock, run an empty
 * critical section and unlock, over and over. With every waiter blocked behind the gates:
 * heap per waiting caller (retained heap, after {@code System.gc()}, minus before they
 * started, divided by their number) and the commands per second Redis serves while they
 * wait. Then the gates open and the run lasts until {@code rounds × waiters} hand-overs
 * or {@code capMs}: hand-overs per second, Redis commands (those scripts call included)
 * and script calls per hand-over, hand-over latency (the previous holder leaving its
 * critical section, before its unlock, to the next one entering it) p50/p99, fairness
 * (Jain's index of the waiters' turns: 1 when all had the same number) and waiters that
 * got no turn. Mutual exclusion: a counter per key that only its holder may touch. Prints
 * one {@code [scale]} line.
 */
final class Waiters {

	private static final Duration WAIT = Duration.ofMinutes(2);

	private Waiters() {
	}

	public static void main(String[] args) throws Exception {
		String candidate = args[0];
		int waiters = Integer.parseInt(args[1]);
		int keyCount = Integer.parseInt(args[2]);
		int rounds = Integer.parseInt(args[3]);
		long capMs = Long.parseLong(args[4]);
		ThreadFactory virtual = ScaleSupport.virtualThreads();
		if (virtual == null) {
			throw new IllegalStateException(
					"Waiters needs Java 21+ (virtual threads), this is " + ScaleSupport.feature());
		}
		Map<String, Object> out = ScaleSupport.values();
		out.put("candidate", candidate);
		out.put("waiters", waiters);
		out.put("keys", keyCount);
		out.put("java", ScaleSupport.feature());
		List<String> node = BenchNodes.first(1);
		String[] keys = new String[keyCount];
		for (int k = 0; k < keyCount; k++) {
			keys[k] = BenchNodes.key("waiters", candidate) + ":" + k;
		}
		Errors.reset();
		try (LockClient client = Candidate.of(candidate).open(node); RedisStats stats = new RedisStats(node)) {
			for (int i = 0; i < 500; i++) {
				client.withLock(keys[i % keyCount], WAIT, () -> {
				});
			}
			State state = new State(waiters, keyCount);
			long heapBefore = ScaleSupport.retainedHeap();
			CountDownLatch gatesHeld = new CountDownLatch(keyCount);
			CountDownLatch open = new CountDownLatch(1);
			for (int k = 0; k < keyCount; k++) {
				int key = k;
				Thread gate = new Thread(() -> {
					try {
						client.withLock(keys[key], WAIT, () -> {
							gatesHeld.countDown();
							await(open);
							state.lastExit.set(key, System.nanoTime());
						});
					}
					catch (Exception ex) {
						Errors.record(ex);
					}
				}, "gate-" + k);
				gate.setDaemon(true);
				gate.start();
			}
			if (!gatesHeld.await(2, TimeUnit.MINUTES)) {
				throw new IllegalStateException("the gates were not all held within 2 minutes");
			}
			Thread[] threads = new Thread[waiters];
			for (int i = 0; i < waiters; i++) {
				int me = i;
				threads[i] = virtual.newThread(() -> state.loop(client, keys, me));
				threads[i].start();
			}
			while (state.calling.get() < waiters) {
				Thread.sleep(20);
			}
			Thread.sleep(500); // let the last ones reach their wait
			long heapWaiting = ScaleSupport.retainedHeap();
			out.put("heapPerWaiterBytes", (double) (heapWaiting - heapBefore) / waiters);
			RedisStats.Snapshot idleStart = stats.snapshot();
			long idleFrom = System.nanoTime();
			Thread.sleep(1_000);
			RedisStats.Snapshot idle = stats.snapshot().minus(idleStart);
			out.put("commandsPerSecondWhileWaiting", idle.commands() / ((System.nanoTime() - idleFrom) / 1e9));

			RedisStats.Snapshot before = stats.snapshot();
			long started = System.nanoTime();
			state.measuring = true;
			open.countDown();
			long target = (long) rounds * waiters;
			long capNanos = TimeUnit.MILLISECONDS.toNanos(capMs);
			while (state.handovers.get() < target && System.nanoTime() - started < capNanos) {
				Thread.sleep(10);
			}
			state.measuring = false;
			double seconds = (System.nanoTime() - started) / 1e9;
			RedisStats.Snapshot redis = stats.snapshot().minus(before);
			state.stop = true;
			for (Thread thread : threads) {
				thread.interrupt();
			}
			long handovers = state.handovers.get();
			out.put("seconds", seconds);
			out.put("handovers", handovers);
			out.put("handoversPerSecond", handovers / seconds);
			out.put("commandsPerHandover", (double) redis.commands() / Math.max(1, handovers));
			out.put("scriptCallsPerHandover", (double) redis.scripts() / Math.max(1, handovers));
			int samples = (int) Math.min(state.latencies.length, state.samples.get());
			long[] sorted = ScaleSupport.sorted(state.latencies, samples);
			out.put("handoverP50Us", ScaleSupport.quantileUs(sorted, samples, 0.50));
			out.put("handoverP99Us", ScaleSupport.quantileUs(sorted, samples, 0.99));
			long[] turns = new long[waiters];
			long starved = 0;
			for (int i = 0; i < waiters; i++) {
				turns[i] = state.turns.get(i);
				starved += (turns[i] == 0) ? 1 : 0;
			}
			out.put("fairnessJain", ScaleSupport.jain(turns));
			out.put("starved", starved);
			out.put("violations", state.violations.get());
			out.put("errors", Errors.count());
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			int stuck = 0;
			for (Thread thread : threads) {
				thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
				stuck += thread.isAlive() ? 1 : 0;
			}
			out.put("notDrained", stuck);
		}
		ScaleSupport.emit(out);
		System.exit(0);
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** What the waiters share; each waiter writes only its own slot of {@code turns}. */
	static final class State {

		final AtomicInteger calling = new AtomicInteger();

		final AtomicLong handovers = new AtomicLong();

		final AtomicLongArray turns;

		final AtomicLongArray lastExit;

		final AtomicIntegerArray inside;

		final AtomicLong violations = new AtomicLong();

		final long[] latencies = new long[1 << 20];

		final AtomicInteger samples = new AtomicInteger();

		volatile boolean measuring;

		volatile boolean stop;

		State(int waiters, int keys) {
			this.turns = new AtomicLongArray(waiters);
			this.lastExit = new AtomicLongArray(keys);
			this.inside = new AtomicIntegerArray(keys);
		}

		void loop(LockClient client, String[] keys, int me) {
			int key = me % keys.length;
			this.calling.incrementAndGet();
			while (!this.stop) {
				try {
					if (!client.withLock(keys[key], WAIT, () -> enter(key, me)) && !this.stop) {
						Errors.record("not acquired within " + WAIT);
					}
				}
				catch (Exception ex) {
					if (!this.stop) {
						Errors.record(ex);
					}
				}
			}
		}

		/** The critical section: only the holder of {@code key} runs it. */
		private void enter(int key, int me) {
			long now = System.nanoTime();
			if (this.inside.incrementAndGet(key) != 1) {
				this.violations.incrementAndGet();
			}
			if (this.measuring) {
				int at = this.samples.getAndIncrement();
				if (at < this.latencies.length) {
					this.latencies[at] = now - this.lastExit.get(key);
				}
				this.turns.incrementAndGet(me);
				this.handovers.incrementAndGet();
			}
			this.inside.decrementAndGet(key);
			this.lastExit.set(key, System.nanoTime());
		}

	}

}
