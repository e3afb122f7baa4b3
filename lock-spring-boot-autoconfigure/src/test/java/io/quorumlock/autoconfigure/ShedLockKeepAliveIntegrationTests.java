package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.integration.QuorumLockRegistry;
import io.quorumlock.redis.QuorumLockEngine;
import io.quorumlock.shedlock.QuorumLockProvider;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's {@code lockAtMostFor} over a short renewed lease: a long
 * {@code lockAtMostFor} is taken under a short restart guard, the keys carry the lease,
 * not {@code lockAtMostFor}, renewal keeps them while the job runs and stops at
 * {@code lockAtMostFor}, and an extension moves that end. The job's name, and a Spring
 * Integration registry's key, are the {@code lock} the engine reports.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShedLockKeepAliveIntegrationTests {

	private static final String KEY = "lock:shedlock:{payouts}";

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private static QuorumLockEngine engine(Duration rejoinDelay) {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofMillis(100))
			.defaults(LockOptions.none().lease(Duration.ofMillis(900)))
			.rejoinDelay(rejoinDelay)
			.build();
	}

	private static LockConfiguration configuration(Duration atMost, Duration atLeast) {
		return new LockConfiguration(Instant.now(), "payouts", atMost, atLeast);
	}

	private static boolean heldOnEveryNode() {
		return redis.nodes().stream().allMatch((node) -> node.pttl(KEY) > 0);
	}

	private static boolean goneFromEveryNode() {
		return redis.nodes().stream().noneMatch((node) -> node.exists(KEY));
	}

	@Test
	void tenMinuteLockAtMostForIsTakenUnderAOneSecondGuardAsARenewedLease() {
		try (QuorumLockEngine engine = engine(Duration.ofSeconds(1))) {
			QuorumLockProvider provider = new QuorumLockProvider(engine, "shedlock", Duration.ofMillis(900));
			// fresh masters are held back by the guard for a second at most: wait until
			// every one votes, so that the lease lands on all three, not on a quorum only
			await().atMost(Duration.ofSeconds(15))
				.until(() -> engine.nodes().stream().allMatch(RegistryStatus.Node::countsTowardQuorum));
			Optional<SimpleLock> lock = await().atMost(Duration.ofSeconds(15))
				.ignoreExceptionsInstanceOf(QuorumUnavailableException.class)
				.until(() -> provider.lock(configuration(Duration.ofMinutes(10), Duration.ZERO)), Optional::isPresent);
			// granted at a quorum of two: the third master's SET may land just after
			await().atMost(Duration.ofSeconds(5)).until(() -> heldOnEveryNode());
			for (RedisServer node : redis.nodes()) {
				assertThat(node.pttl(KEY)).isPositive().isLessThanOrEqualTo(900);
			}
			// renewed while held: still there after several leases
			await().during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5)).until(() -> heldOnEveryNode());
			lock.get().unlock();
			await().atMost(Duration.ofSeconds(5)).until(() -> goneFromEveryNode());
		}
	}

	@Test
	void renewalStopsAtLockAtMostFor() {
		try (QuorumLockEngine engine = engine(Duration.ZERO)) {
			QuorumLockProvider provider = new QuorumLockProvider(engine, "shedlock", Duration.ofMillis(600));
			Optional<SimpleLock> lock = provider.lock(configuration(Duration.ofMillis(1500), Duration.ZERO));
			assertThat(lock).isPresent();
			// held past its lease (renewed), then let go after lockAtMostFor, never
			// unlocked
			await().during(Duration.ofMillis(1000)).atMost(Duration.ofSeconds(3)).until(() -> heldOnEveryNode());
			await().atMost(Duration.ofSeconds(10)).until(() -> goneFromEveryNode());
		}
	}

	@Test
	void extendingMovesTheEndOfRenewal() {
		try (QuorumLockEngine engine = engine(Duration.ZERO)) {
			QuorumLockProvider provider = new QuorumLockProvider(engine, "shedlock", Duration.ofMillis(600));
			SimpleLock lock = provider.lock(configuration(Duration.ofMillis(1200), Duration.ZERO)).orElseThrow();
			SimpleLock extended = lock.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
			// past the first lockAtMostFor and a lease after it, still renewed
			await().during(Duration.ofMillis(3000)).atMost(Duration.ofSeconds(6)).until(() -> heldOnEveryNode());
			for (RedisServer node : redis.nodes()) {
				assertThat(node.pttl(KEY)).isLessThanOrEqualTo(600);
			}
			extended.unlock();
			await().atMost(Duration.ofSeconds(5)).until(() -> goneFromEveryNode());
		}
	}

	@Test
	void aJobsNameIsTheLockInStatusAndMessages() {
		try (QuorumLockEngine engine = engine(Duration.ZERO); QuorumLockEngine other = engine(Duration.ZERO)) {
			SimpleLock lock = new QuorumLockProvider(engine).lock(configuration(Duration.ofMinutes(10), Duration.ZERO))
				.orElseThrow();
			assertThat(engine.leases()).singleElement().satisfies((lease) -> {
				assertThat(lease.lock()).isEqualTo("payouts");
				assertThat(lease.keys()).containsExactly(KEY);
			});
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> other
					.acquire(LockRequest.of("payouts").name("shedlock").label("payouts").waitAtMost(Duration.ZERO)))
				.withMessageStartingWith("lock 'payouts' key '" + KEY + "'");
			lock.unlock();
		}
	}

	@Test
	void aSpringIntegrationLockIsNamedByItsRegistryKey() {
		try (QuorumLockEngine engine = engine(Duration.ZERO)) {
			Lock lock = new QuorumLockRegistry(engine, "payments").obtain("leader");
			assertThat(lock.tryLock()).isTrue();
			List<RegistryStatus.HeldLease> leases = engine.leases();
			assertThat(leases).singleElement().satisfies((lease) -> {
				assertThat(lease.lock()).isEqualTo("payments");
				assertThat(lease.keys()).containsExactly("lock:{payments:leader}");
			});
			lock.unlock();
		}
	}

}
