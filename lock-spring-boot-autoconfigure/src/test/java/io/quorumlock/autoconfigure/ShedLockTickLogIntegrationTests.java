package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import io.quorumlock.Lease;
import io.quorumlock.LockListener;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.testing.QuorumReadiness;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a {@code @SchedulerLock} job's skipped ticks leave in the log, with Spring's own
 * scheduler ticking every 50 ms and the application's output captured: a tick another
 * instance runs is no error at all (ShedLock skips it quietly, as the
 * {@code @DistributedLock} recipe does); a tick without a quorum is skipped too, reported
 * once per incident at WARN with its reason, and counted (the registry's listeners hear
 * every refusal, so the {@code quorum_unavailable} outcome of the meters counts each).
 * Neither ever reaches the scheduler as an "Unexpected error occurred in scheduled task".
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShedLockTickLogIntegrationTests {

	private static final String SCHEDULER_ERROR = "Unexpected error occurred in scheduled task";

	private static final String INCIDENT = "ShedLock job 'tick-log' skipped";

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final Refusals refusals = new Refusals();

	private final AtomicInteger runs = new AtomicInteger();

	private ConfigurableApplicationContext instance;

	@AfterEach
	void close() {
		if (this.instance != null) {
			this.instance.close();
		}
	}

	@Test
	void aTickAnotherInstanceRunsIsNoError(CapturedOutput output) {
		try (QuorumLockEngine otherInstance = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.rejoinDelay(Duration.ZERO)
			.build()) {
			// connected first: a tick refused for a missing quorum is another test
			QuorumReadiness.await(otherInstance, Duration.ofSeconds(20));
			Lease running = otherInstance.acquire(LockRequest.of("tick-log").name("shedlock"));
			this.instance = start();
			await().atMost(Duration.ofSeconds(30)).until(() -> this.refusals.heldElsewhere.get() >= 1);
			// from the first answer on (ticks before the engine first connected are
			// another test's subject)
			int before = incidents(output).size();
			await().atMost(Duration.ofSeconds(30)).until(() -> this.refusals.heldElsewhere.get() >= 6);
			assertThat(this.runs).hasValue(0);
			assertThat(incidents(output)).hasSize(before);
			running.release();
		}
		assertThat(output).doesNotContain(SCHEDULER_ERROR).doesNotContain(" ERROR ");
	}

	@Test
	void aTickWithoutAQuorumIsReportedOncePerIncidentAndCounted(CapturedOutput output) {
		this.instance = start();
		await().atMost(Duration.ofSeconds(30)).until(() -> this.runs.get() >= 1);
		// counted from here: ticks before the engine first connected may have been an
		// incident of their own, over at the first run
		int before = incidents(output).size();
		redis.node(1).kill();
		redis.node(2).kill();
		await().atMost(Duration.ofSeconds(30)).until(() -> this.refusals.unavailable.size() >= 5);
		List<String> first = incidents(output).subList(before, incidents(output).size());
		assertThat(first).as("WARN lines of the incident").hasSize(1);
		assertThat(first.get(0)).contains("WARN")
			.contains("quorum unavailable")
			.contains("quorum 2")
			.contains(redis.node(1).host() + ":" + redis.node(1).port());
		// the quorum comes back, a tick runs, and the next incident is reported again
		redis.node(1).restart();
		int ran = this.runs.get();
		await().atMost(Duration.ofSeconds(30)).until(() -> this.runs.get() > ran);
		redis.node(1).kill();
		int counted = this.refusals.unavailable.size();
		await().atMost(Duration.ofSeconds(30)).until(() -> this.refusals.unavailable.size() >= counted + 5);
		assertThat(incidents(output)).as("WARN lines of two incidents").hasSize(before + 2);
		assertThat(output).doesNotContain(SCHEDULER_ERROR).doesNotContain(" ERROR ");
	}

	private static List<String> incidents(CapturedOutput output) {
		return output.getOut().lines().filter((line) -> line.contains(INCIDENT)).toList();
	}

	private ConfigurableApplicationContext start() {
		return new SpringApplicationBuilder(TickLogConfiguration.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("quorumlock.nodes=" + String.join(",", redis.uris()), "quorumlock.rejoin-delay=0s",
					BoundedWait.NODE_TIMEOUT, "spring.main.banner-mode=off")
			.initializers((context) -> {
				context.getBeanFactory().registerSingleton("refusals", this.refusals);
				context.getBeanFactory().registerSingleton("runs", this.runs);
			})
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "10s")
	@ImportAutoConfiguration({ QuorumLockAutoConfiguration.class, QuorumLockShedLockAutoConfiguration.class })
	static class TickLogConfiguration {

		@Bean
		TickJob tickJob(AtomicInteger runs) {
			return new TickJob(runs);
		}

	}

	/** A ShedLock job, as an application has it. */
	static class TickJob {

		private final AtomicInteger runs;

		TickJob(AtomicInteger runs) {
			this.runs = runs;
		}

		@Scheduled(fixedDelay = 50)
		@SchedulerLock(name = "tick-log", lockAtMostFor = "5s")
		public void run() {
			this.runs.incrementAndGet();
		}

	}

	/** What the registry's listeners hear of refused ticks. */
	static final class Refusals implements LockListener {

		final AtomicInteger heldElsewhere = new AtomicInteger();

		final List<QuorumUnavailableException> unavailable = new CopyOnWriteArrayList<>();

		@Override
		public void onNotAcquired(LockRequest request, Duration waited, Throwable failure) {
			if (failure instanceof QuorumUnavailableException unavailable) {
				this.unavailable.add(unavailable);
			}
			else if (failure instanceof LockNotAcquiredException) {
				this.heldElsewhere.incrementAndGet();
			}
		}

	}

}
