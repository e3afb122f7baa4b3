package io.quorumlock.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import net.javacrumbs.shedlock.core.LockConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.endpoint.SecurityContext;

import io.quorumlock.Lease;
import io.quorumlock.LockMode;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.shedlock.QuorumLockProvider;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Meters, observation, endpoint and health over a real engine on real servers, with the
 * mode (exclusive, shared, permit) of each acquisition and lease.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ActuateIntegrationTests {

	/** A node timeout no answer of a loaded machine's loopback Redis outlasts. */
	private static final Duration NODE_TIMEOUT = Duration.ofSeconds(1);

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private QuorumLockEngine locks;

	private QuorumLockEngine other;

	private String key;

	@BeforeEach
	void start() {
		this.locks = builder().listener(new LockMetrics(this.meters)).build();
		this.other = builder().build();
		this.key = "secret-order-" + UUID.randomUUID();
	}

	@AfterEach
	void close() {
		this.locks.close();
		this.other.close();
	}

	private static QuorumLockEngine.Builder builder() {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			// not a test of timeouts: a loaded machine's answers must not turn a grant
			// into
			// "held elsewhere" or "unavailable"
			.nodeTimeout(NODE_TIMEOUT)
			.rejoinDelay(Duration.ZERO); // fresh fixture servers
	}

	private LockRequest request() {
		return LockRequest.of(this.key).label("OrderService.pay").lease(Duration.ofSeconds(5));
	}

	@Test
	void metersCountGrantsTimeoutsQuorumLossAndLostLeases() {
		try (Lease lease = this.locks.acquire(request())) {
			assertThat(this.meters.get("distributed.lock.active").gauge().value()).isEqualTo(1);
			try (Lease held = this.other.acquire(request())) {
				// not reached
			}
			catch (LockNotAcquiredException expected) {
			}
		}
		assertThat(this.meters.get("distributed.lock.active").gauge().value()).isZero();
		try (Lease blocker = this.other.acquire(request())) {
			assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> this.locks.acquire(request()));
		}
		// the shortest lease the node timeout allows (more than three of it)
		Lease shortLived = this.locks
			.acquire(request().lease(NODE_TIMEOUT.multipliedBy(3).plusMillis(500)).renew(false));
		await().atMost(Duration.ofSeconds(20))
			.until(() -> this.meters.get("distributed.lock.lost")
				.tag("lock", "OrderService.pay")
				.counter()
				.count() == 1);
		// reports the loss through its stage; the keys are deleted
		shortLived.releaseAsync();
		this.locks.acquire(LockRequest.of(this.key + "x").label("OrderService.pay")).release();
		redis.node(1).kill();
		redis.node(2).kill();
		assertThatExceptionOfType(QuorumUnavailableException.class).isThrownBy(() -> this.locks.acquire(request()));

		assertThat(wait("acquired").count()).isEqualTo(3);
		assertThat(wait("timeout").count()).isEqualTo(1);
		assertThat(wait("quorum_unavailable").count()).isEqualTo(1);
		assertThat(this.meters.get("distributed.lock.failures")
			.tags("lock", "OrderService.pay", "reason", "timeout")
			.counter()
			.count()).isEqualTo(1);
		assertThat(this.meters.get("distributed.lock.held").tag("lock", "OrderService.pay").timer().count())
			.isEqualTo(3);
		// the short-lived lease ran out unrenewed: a loss, but no renewal's outcome
		assertThat(this.meters.get("distributed.lock.renewals").tag("outcome", "lost").counter().count()).isZero();
		assertThat(this.meters.find("distributed.lock.node.errors").counters()).isNotEmpty()
			.allSatisfy((counter) -> assertThat(counter.getId().getTag("node")).startsWith("127.0.0.1:"));
		// the histogram has the documented service-level buckets
		assertThat(wait("acquired").takeSnapshot().histogramCounts()).extracting((bucket) -> bucket.bucket())
			.contains(1_000_000.0, 5_000_000_000.0);
		// no series carries the evaluated key
		for (Meter meter : this.meters.getMeters()) {
			for (Tag tag : meter.getId().getTags()) {
				assertThat(tag.getValue()).doesNotContain("secret-order");
			}
		}
	}

	@Test
	void aCallSkippedBecauseTheLockIsHeldElsewhereIsASkipNotAFailure() {
		RecentLockFailures recent = new RecentLockFailures();
		this.locks.close();
		this.locks = builder().listener(new LockMetrics(this.meters)).listener(recent).build();
		QuorumLockProvider shedLock = new QuorumLockProvider(this.locks, "jobs");
		try (Lease blocker = this.other.acquire(request());
				Lease tick = this.other.acquire(LockRequest.of("report").name("jobs").label("report"))) {
			// onFailure = SKIP, and ShedLock's tick that another instance runs
			assertThat(this.locks.tryAcquire(request().skipping(true).waitAtMost(Duration.ZERO))).isEmpty();
			assertThat(shedLock
				.lock(new LockConfiguration(Instant.now(), "report", Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
			// a caller that does not skip fails
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> this.locks.acquire(request().waitAtMost(Duration.ZERO)));
		}
		assertThat(wait("skipped").count()).isOne();
		assertThat(wait("timeout").count()).isOne();
		assertThat(this.meters.get("distributed.lock.skipped").tag("lock", "OrderService.pay").counter().count())
			.isOne();
		assertThat(this.meters.get("distributed.lock.skipped").tag("lock", "report").counter().count()).isOne();
		assertThat(this.meters.find("distributed.lock.failures").tag("lock", "report").counters())
			.allSatisfy((failures) -> assertThat(failures.count()).isZero());
		assertThat(this.meters.get("distributed.lock.failures")
			.tags("lock", "OrderService.pay", "reason", "timeout")
			.counter()
			.count()).isOne();
		assertThat(recent.failures()).singleElement().satisfies((failure) -> {
			assertThat(failure.lock()).isEqualTo("OrderService.pay");
			assertThat(failure.outcome()).isEqualTo("timeout");
			assertThat(failure.count()).isOne();
		});
	}

	private io.micrometer.core.instrument.Timer wait(String outcome) {
		return this.meters.get("distributed.lock.wait").tags("lock", "OrderService.pay", "outcome", outcome).timer();
	}

	@Test
	void observationWrapsTheAcquisition() {
		List<String> seen = new CopyOnWriteArrayList<>();
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStop(Observation.Context context) {
				seen.add(context.getName() + " " + context.getLowCardinalityKeyValue("lock").getValue() + " "
						+ context.getLowCardinalityKeyValue("outcome").getValue());
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		ObservedLockRegistry observed = new ObservedLockRegistry(this.locks, observations);
		observed.execute(request(), () -> {
			assertThat(this.other.tryAcquire(request())).isEmpty();
			return null;
		});
		try (Lease blocker = this.other.acquire(request())) {
			assertThat(observed.tryAcquire(request())).isEmpty();
			assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> observed.acquire(request()));
		}
		assertThat(seen).containsExactly("distributed.lock.acquire OrderService.pay acquired",
				"distributed.lock.acquire OrderService.pay timeout",
				"distributed.lock.acquire OrderService.pay timeout");
	}

	@Test
	void endpointShowsNodesLeasesAndLeaks() {
		redis.node(0).call("SET", "lock:{leaked}", "x");
		LocksEndpoint endpoint = new LocksEndpoint(this.locks, this.locks);
		try (Lease lease = this.locks.acquire(LockRequest.of(this.key).name("orders"))) {
			LocksEndpoint.LocksDescriptor state = endpoint.locks(null);
			assertThat(state.mode()).isEqualTo("quorum");
			assertThat(state.quorum()).isEqualTo(2);
			assertThat(state.quorumAvailable()).isTrue();
			assertThat(state.nodes()).hasSize(3).allSatisfy((node) -> {
				assertThat(node.up()).isTrue();
				assertThat(node.voting()).isTrue();
			});
			assertThat(state.leases()).singleElement().satisfies((held) -> {
				assertThat(held.lock()).isEqualTo("orders");
				assertThat(held.keys()).containsExactly("lock:orders:{" + this.key + "}");
				assertThat(held.fencingToken()).isNull();
			});
			assertThat(state.keysWithoutTtl()).isNull();
			assertThat(endpoint.locks(true).keysWithoutTtl()).singleElement()
				.satisfies((leak) -> assertThat(leak).endsWith(" lock:{leaked}"));
		}
	}

	@Test
	void endpointAndHealthShowOneMasterListedTwice() {
		int port = redis.node(0).port();
		redis.node(0).kill(); // unknown at start-up, so not refused then: found later
		try (QuorumLockEngine twice = QuorumLockEngine.builder()
			.nodes("redis://localhost:" + port, "redis://127.0.0.1:" + port, redis.node(1).uri())
			.nodeTimeout(NODE_TIMEOUT)
			.rejoinDelay(Duration.ZERO)
			.build()) {
			redis.node(0).restart();
			LocksEndpoint endpoint = new LocksEndpoint(twice, twice);
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(endpoint.locks(null).nodes().get(1).sameServerAs())
					.isEqualTo("localhost:" + port));
			assertThat(endpoint.locks(null).nodes().get(1).voting()).isFalse();
			assertThat(endpoint.locks(null).nodes().get(0).sameServerAs()).isNull();
			// what the distributedLock health contributor reports on either Boot line
			LockHealthReport.Verdict node2 = LockHealthReport.node(twice, 1);
			assertThat(node2.up()).isFalse();
			assertThat(node2.details()).containsEntry("sameServerAs", "localhost:" + port)
				.hasEntrySatisfying("heldBackBy", (why) -> assertThat(why).asString().contains("same Redis server"));
		}
	}

	@Test
	void forceUnlockForcesALockOpen() {
		LocksEndpoint endpoint = new LocksEndpoint(this.locks, this.locks);
		Lease lease = this.other.acquire(request().renew(false));
		// the grant returns at a quorum: wait for the last master's SET before counting
		// deletions
		String redisKey = "lock:{" + this.key + "}";
		await().atMost(Duration.ofSeconds(5))
			.until(() -> redis.nodes().stream().allMatch((node) -> node.exists(redisKey)));
		LocksEndpoint.ForceUnlockDescriptor result = endpoint.forceUnlock(SecurityContext.NONE,
				("lock:{" + this.key + "}").split("/"));
		assertThat(result.deletedOnNodes()).isEqualTo(3);
		assertThat(this.locks.tryAcquire(request())).hasValueSatisfying(Lease::release);
		lease.releaseAsync();
	}

	@Test
	void waitTimerIsTaggedExclusiveSharedOrPermit() {
		this.locks.acquire(request()).release();
		try (Lease first = this.locks.acquire(request().mode(LockMode.SHARED));
				Lease second = this.locks.acquire(request().mode(LockMode.SHARED))) {
			// two shared holders at once; a writer is refused while they hold
			assertThat(elsewhere(() -> this.locks.tryAcquire(request()))).isEmpty();
		}
		LockRequest permits = LockRequest.of(this.key + ":pool").label("OrderService.pay").permits(2);
		try (Lease a = this.locks.acquire(permits); Lease b = this.other.acquire(permits)) {
			// both permits taken: the next one is refused
			assertThat(elsewhere(() -> this.locks.tryAcquire(permits))).isEmpty();
		}

		assertThat(waitTimer("acquired", "exclusive").count()).isEqualTo(1);
		assertThat(waitTimer("acquired", "shared").count()).isEqualTo(2);
		assertThat(waitTimer("timeout", "exclusive").count()).isEqualTo(1);
		assertThat(waitTimer("acquired", "permit").count()).isEqualTo(1);
		assertThat(waitTimer("timeout", "permit").count()).isEqualTo(1);
		assertThat(this.meters.find(LockMetrics.WAIT).timers()).extracting((timer) -> timer.getId().getTag("mode"))
			.containsOnly("exclusive", "shared", "permit");
	}

	/** On another thread, so that nothing this thread holds is taken for a re-entry. */
	private static <T> T elsewhere(Supplier<T> action) {
		return CompletableFuture.supplyAsync(action).orTimeout(20, TimeUnit.SECONDS).join();
	}

	private io.micrometer.core.instrument.Timer waitTimer(String outcome, String mode) {
		return this.meters.get(LockMetrics.WAIT)
			.tags("lock", "OrderService.pay", "outcome", outcome, "mode", mode)
			.timer();
	}

	@Test
	void endpointShowsTheModeAndSlotOfEachLease() {
		LocksEndpoint endpoint = new LocksEndpoint(this.locks, this.locks);
		try (Lease exclusive = this.locks.acquire(LockRequest.of(this.key).name("orders"));
				Lease shared = this.locks.acquire(LockRequest.of(this.key).name("reports").mode(LockMode.SHARED));
				Lease permit = this.locks.acquire(LockRequest.of(this.key).name("pool").permits(3))) {
			List<LocksEndpoint.LeaseDescriptor> leases = endpoint.locks(null).leases();
			assertThat(leases).hasSize(3);
			assertThat(leases).filteredOn((held) -> held.lock().equals("orders")).singleElement().satisfies((held) -> {
				assertThat(held.mode()).isEqualTo("exclusive");
				assertThat(held.slot()).isNull();
			});
			assertThat(leases).filteredOn((held) -> held.lock().equals("reports")).singleElement().satisfies((held) -> {
				assertThat(held.mode()).isEqualTo("shared");
				assertThat(held.slot()).isNull();
				assertThat(held.keys()).containsExactly("lock:reports:{" + this.key + "}");
			});
			assertThat(leases).filteredOn((held) -> held.lock().equals("pool")).singleElement().satisfies((held) -> {
				assertThat(held.mode()).isEqualTo("permit");
				assertThat(held.slot()).isNotNull().isBetween(0, 2);
				assertThat(held.keys()).containsExactly("lock:pool:{" + this.key + "}:permit:" + held.slot());
			});
		}
		assertThat(endpoint.locks(null).leases()).isEmpty();
	}

}
