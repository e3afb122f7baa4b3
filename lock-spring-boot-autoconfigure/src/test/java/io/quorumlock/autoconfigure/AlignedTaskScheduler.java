package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * A test scheduler for {@code @Scheduled(fixedRate = ...)} that starts every fixed-rate
 * task on a shared grid, {@code epoch + tick * period + offset}, so that several
 * application contexts tick together with a known offset from each other. Each run knows
 * its tick exactly (the grid tick it was scheduled for, not a reading of the clock): a
 * fixed-rate task's n-th run is for its first tick plus n. What ran for which tick is
 * recorded in the shared {@link Ticks}.
 */
class AlignedTaskScheduler extends ThreadPoolTaskScheduler {

	private static final ThreadLocal<Long> current = new ThreadLocal<>();

	private final Instant epoch;

	private final Duration offset;

	private final Ticks ticks;

	private final String instance;

	AlignedTaskScheduler(Instant epoch, Duration offset, Ticks ticks, String instance) {
		this.epoch = epoch;
		this.offset = offset;
		this.ticks = ticks;
		this.instance = instance;
		setThreadNamePrefix(instance + "-scheduler-");
		setPoolSize(2);
	}

	/** The tick the scheduled run on this thread was scheduled for. */
	static long tick() {
		Long tick = current.get();
		if (tick == null) {
			throw new IllegalStateException("not in a run of an AlignedTaskScheduler");
		}
		return tick;
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
		return scheduleAtFixedRate(task, Instant.now(), period);
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
		long first = Math.max(0, Duration.between(this.epoch.plus(this.offset), startTime).toNanos()) / period.toNanos()
				+ 1;
		Instant start = this.epoch.plus(this.offset).plus(period.multipliedBy(first));
		AtomicLong next = new AtomicLong(first);
		Runnable onTick = () -> {
			long tick = next.getAndIncrement();
			this.ticks.fired(this.instance, tick);
			current.set(tick);
			try {
				task.run();
			}
			finally {
				current.remove();
			}
		};
		return super.scheduleAtFixedRate(onTick, start, period);
	}

	/** Which instance fired for which tick, and how often each tick's job body ran. */
	static final class Ticks {

		private final Map<String, Set<Long>> fired = new ConcurrentHashMap<>();

		private final Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();

		void fired(String instance, long tick) {
			this.fired.computeIfAbsent(instance, (key) -> ConcurrentHashMap.newKeySet()).add(tick);
		}

		/** Called by the job body. */
		void ran(long tick) {
			this.runs.computeIfAbsent(tick, (key) -> new AtomicInteger()).incrementAndGet();
		}

		Set<Long> firedBy(String instance) {
			return this.fired.getOrDefault(instance, Set.of());
		}

		int runs(long tick) {
			AtomicInteger count = this.runs.get(tick);
			return (count != null) ? count.get() : 0;
		}

	}

}
