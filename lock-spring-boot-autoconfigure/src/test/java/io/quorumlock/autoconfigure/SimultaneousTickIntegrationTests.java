package io.quorumlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.quorumlock.DistributedLock;
import io.quorumlock.OnFailure;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cron firing in the same instant on three instances (three application contexts, each
 * with its own engine) over three masters, for {@value #TICKS} ticks: every tick runs
 * exactly once, with all three masters voting and with one of them stopped. A subclass
 * names the job: the documented {@code @Scheduled} + {@code @DistributedLock(onFailure =
 * SKIP)} recipe ({@link RecipeTickIntegrationTests}) or a ShedLock {@code @SchedulerLock}
 * job ({@link ShedLockTickIntegrationTests}); two classes, so that the build's two test
 * JVMs can run them side by side. Each context's {@code @Scheduled} task is captured by
 * its {@link TickScheduler} instead of a timer; one thread per context runs it, and a
 * barrier releases the three threads at once for each tick, the next tick coming
 * {@value #PERIOD_MS} ms after the one before, once the {@code holdAtLeast}
 * ({@value #HOLD_MS} ms) of the one before is over and its lock is gone from a quorum of
 * the masters: a real schedule's period is far longer than the hold, and a release a
 * loaded machine delays past a short period is not what these tests are about.
 */
abstract class SimultaneousTickIntegrationTests {

	static final int TICKS = 100;

	/**
	 * The retry budget of the instances: a call whose rounds no answer decided (a loaded
	 * machine) is retried this long, so it may be granted this late after the tick.
	 */
	static final long RETRY_BUDGET_MS = 250;

	/** The instances' node timeout. */
	static final long NODE_TIMEOUT_MS = 100;

	/**
	 * The hold: longer than the schedulers' spread (none here, a barrier releases them)
	 * plus the retry budget and a node timeout, as the scheduled-jobs guide asks.
	 */
	static final long HOLD_MS = RETRY_BUDGET_MS + NODE_TIMEOUT_MS + 150;

	static final long PERIOD_MS = HOLD_MS + 50;

	private static final int INSTANCES = 3;

	private final String job;

	private final String key;

	private final Class<?> configuration;

	private final Runs runs = new Runs();

	/** Ticks that had to wait for the last tick's lock to leave a master. */
	private final AtomicInteger heldPastTheHold = new AtomicInteger();

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	/**
	 * @param job the job's name in the test's report
	 * @param key the job's lock key on the masters
	 * @param configuration the application's configuration, with the job
	 */
	SimultaneousTickIntegrationTests(String job, String key, Class<?> configuration) {
		this.job = job;
		this.key = key;
		this.configuration = configuration;
	}

	/** Three masters, started for the subclass. */
	abstract RedisServers redis();

	@AfterEach
	void closeInstances() {
		this.instances.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void everyTickRunsOnceWithThreeMastersVoting() throws Exception {
		assertEveryTickRanOnce(this.job + ", 3 of 3 masters", tick(this.configuration));
	}

	@Test
	void everyTickRunsOnceWithTwoOfThreeMastersVoting() throws Exception {
		redis().node(2).stop();
		assertEveryTickRanOnce(this.job + ", 2 of 3 masters", tick(this.configuration));
	}

	private void assertEveryTickRanOnce(String variant, Runs runs) {
		List<Long> missed = new ArrayList<>();
		List<Long> doubled = new ArrayList<>();
		for (long tick = 0; tick < TICKS; tick++) {
			int count = runs.of(tick);
			if (count == 0) {
				missed.add(tick);
			}
			else if (count > 1) {
				doubled.add(tick);
			}
		}
		System.out.printf(
				"%s, %d ticks: %d without a run %s, %d with two runs or more %s, %d calls failed, "
						+ "%d waited past the hold for the last lock to leave a quorum%n",
				variant, TICKS, missed.size(), missed, doubled.size(), doubled, runs.failures.get(),
				this.heldPastTheHold.get());
		assertThat(missed).as("ticks without a run").isEmpty();
		assertThat(doubled).as("ticks with two runs").isEmpty();
	}

	/**
	 * Start the instances, then run {@value #TICKS} ticks: for each, the three threads
	 * meet at a barrier, which opens when the tick is due, and run their context's
	 * scheduled task at once.
	 */
	private Runs tick(Class<?> configuration) throws Exception {
		List<Runnable> tasks = new ArrayList<>();
		// one after the other: each start sets up Spring Boot's logging, which started at
		// once from several threads adds its console appender more than once and doubles
		// every later test's log lines in this JVM
		for (int i = 0; i < INSTANCES; i++) {
			this.instances.add(start(configuration));
		}
		for (ConfigurableApplicationContext context : this.instances) {
			List<Runnable> scheduled = context.getBean(TickScheduler.class).tasks;
			assertThat(scheduled).hasSize(1);
			tasks.add(scheduled.get(0));
		}
		AtomicLong due = new AtomicLong(System.nanoTime());
		CyclicBarrier barrier = new CyclicBarrier(INSTANCES, () -> {
			// the scheduler's clock: the next tick is due a period after the last one,
			// and
			// after the last run's holdAtLeast (measured from its grant, which a loaded
			// machine may delay past the tick)
			long at = Math.max(due.get(), this.runs.lastRun.get() + TimeUnit.MILLISECONDS.toNanos(HOLD_MS));
			for (long left = at - System.nanoTime(); left > 0; left = at - System.nanoTime()) {
				LockSupport.parkNanos(left);
			}
			awaitReleased();
			due.set(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PERIOD_MS));
		});
		List<Thread> threads = new ArrayList<>();
		List<Throwable> errors = new CopyOnWriteArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			Runnable task = tasks.get(i);
			Thread thread = new Thread(() -> {
				try {
					for (long tick = 0; tick < TICKS; tick++) {
						barrier.await(30, TimeUnit.SECONDS);
						Runs.current.set(tick);
						try {
							task.run();
						}
						catch (RuntimeException ex) {
							// a scheduler logs and goes on to the next tick
							this.runs.failures.incrementAndGet();
						}
					}
				}
				catch (Throwable ex) {
					errors.add(ex);
					barrier.reset();
				}
			}, "instance-" + i + "-scheduler");
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			thread.join(TimeUnit.SECONDS.toMillis(150));
		}
		assertThat(errors).isEmpty();
		return this.runs;
	}

	/**
	 * Wait until the last tick's lock is gone from a quorum of the masters (its hold over
	 * and its release landed there), so that the next tick can be granted; a lock that a
	 * quorum still holds 10 s on fails the tick's barrier. A minority may still hold the
	 * key (a round's undo lost to a node timeout leaves it there until it expires), which
	 * is no reason for a tick not to run.
	 */
	private void awaitReleased() {
		int quorum = redis().size() / 2 + 1;
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		boolean waited = false;
		while (free() < quorum) {
			waited = true;
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException(this.key + " still held on " + (redis().size() - free()) + " of "
						+ redis().size() + " masters (stopped ones included) 10 s after the hold");
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
		if (waited) {
			this.heldPastTheHold.incrementAndGet();
		}
	}

	/** Running masters where the job's key is not set. */
	private int free() {
		int free = 0;
		for (RedisServer node : redis().nodes()) {
			free += (node.isRunning() && !node.exists(this.key)) ? 1 : 0;
		}
		return free;
	}

	private ConfigurableApplicationContext start(Class<?> configuration) {
		return new SpringApplicationBuilder(configuration).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("quorumlock.nodes=" + String.join(",", redis().uris()), "quorumlock.rejoin-delay=0s",
					"quorumlock.node-timeout=" + NODE_TIMEOUT_MS + "ms",
					"quorumlock.retry-budget=" + RETRY_BUDGET_MS + "ms", "spring.main.banner-mode=off")
			.initializers((GenericApplicationContext context) -> {
				context.registerBean(Runs.class, () -> this.runs);
				context.registerBean("taskScheduler", TickScheduler.class, TickScheduler::new);
			})
			.run();
	}

	/** Runs of the job per tick, counted by the job bodies of every instance. */
	static final class Runs {

		static final ThreadLocal<Long> current = new ThreadLocal<>();

		private final Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();

		final AtomicInteger failures = new AtomicInteger();

		/** When the job body last ran, just after its grant. */
		final AtomicLong lastRun = new AtomicLong(System.nanoTime());

		void ran() {
			this.lastRun.accumulateAndGet(System.nanoTime(), Math::max);
			this.runs.computeIfAbsent(current.get(), (tick) -> new AtomicInteger()).incrementAndGet();
		}

		int of(long tick) {
			AtomicInteger count = this.runs.get(tick);
			return (count != null) ? count.get() : 0;
		}

	}

	/**
	 * A task scheduler that keeps the cron tasks it is given instead of timing them: the
	 * test fires them.
	 */
	static final class TickScheduler extends ThreadPoolTaskScheduler {

		final List<Runnable> tasks = new CopyOnWriteArrayList<>();

		@Override
		public ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
			this.tasks.add(task);
			return null;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration(QuorumLockAutoConfiguration.class)
	static class RecipeConfiguration {

		@Bean
		RecipeJob recipeJob(Runs runs) {
			return new RecipeJob(runs);
		}

	}

	/** The recipe of the scheduled jobs page, with a hold at the scale of these ticks. */
	static class RecipeJob {

		private final Runs runs;

		RecipeJob(Runs runs) {
			this.runs = runs;
		}

		@Scheduled(cron = "0 0 2 * * *")
		@DistributedLock(name = "jobs", key = "'nightly-report'", holdAtLeast = HOLD_MS + "ms",
				onFailure = OnFailure.SKIP)
		public void run() {
			this.runs.ran();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "10m")
	@ImportAutoConfiguration({ QuorumLockAutoConfiguration.class, QuorumLockShedLockAutoConfiguration.class })
	static class ShedLockConfiguration {

		@Bean
		ShedLockJob shedLockJob(Runs runs) {
			return new ShedLockJob(runs);
		}

	}

	/** A ShedLock job as the moving-from-ShedLock page writes it. */
	static class ShedLockJob {

		private final Runs runs;

		ShedLockJob(Runs runs) {
			this.runs = runs;
		}

		@Scheduled(cron = "0 0 2 * * *")
		@SchedulerLock(name = "nightly-report", lockAtMostFor = "10m", lockAtLeastFor = HOLD_MS + "ms")
		public void run() {
			this.runs.ran();
		}

	}

}
