package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider.ImmediateRedisCredentialsProvider;
import org.junit.jupiter.api.Test;

import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Bad engine settings are refused before anything connects, with the setting and the
 * value.
 */
class EngineBuilderTests {

	@Test
	void portThatIsNotANumberIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QuorumLockEngine.builder().nodes("redis://localhost:notaport").build())
			.withMessageContaining("'redis://localhost:notaport' needs a host and a numeric port");
	}

	@Test
	void aFencingCounterTtlShorterThanAMinuteIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QuorumLockEngine.builder()
				.nodes("redis://h:6379")
				.fencingCounterTtl(java.time.Duration.ofSeconds(5))
				.build())
			.withMessageContaining(
					"fencingCounterTtl (quorumlock.fencing.counter-ttl) must be at least 60 s, was 5000 ms")
			.withMessageContaining("any difference between the masters' clocks");
	}

	@Test
	void unknownSchemeIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> QuorumLockEngine.builder().nodes("http://h:6379").build())
			.withMessageContaining("must start with redis:// or rediss://, not http://");
	}

	@Test
	void portOutOfRangeIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QuorumLockEngine.builder().nodes("redis://h:70000").build())
			.withMessageContaining("h:70000");
	}

	@Test
	void passwordNeverAppearsInTheMessage() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QuorumLockEngine.builder().nodes("redis://app:s3cret@h:notaport").build())
			.withMessageContaining("redis://******@h:notaport")
			.withMessageNotContaining("s3cret");
	}

	@Test
	void duplicateNodeIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QuorumLockEngine.builder().nodes("redis://h:6379", "redis://H:6379/1").build())
			.withMessageContaining("H:6379 is listed twice");
	}

	@Test
	void noNodeIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> QuorumLockEngine.builder().build())
			.withMessageContaining("at least one Redis node is required");
	}

	@Test
	void driftFactorOutOfRangeIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QuorumLockEngine.builder().nodes("redis://h:1").clockDriftFactor(0.5).build())
			.withMessageContaining("clockDriftFactor must be in [0, 0.5), was 0.5");
	}

	@Test
	void nodeTimeoutNotBelowAThirdOfTheLeaseIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QuorumLockEngine.builder()
				.nodes("redis://h:1")
				.nodeTimeout(Duration.ofMillis(50))
				.defaults(LockOptions.none().lease(Duration.ofMillis(150)))
				.build())
			.withMessageContaining("defaults: lease 150 ms is too short for node timeout 50 ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QuorumLockEngine.builder()
				.nodes("redis://h:1")
				.instance("orders", LockOptions.none().lease(Duration.ofMillis(100)))
				.build())
			.withMessageContaining("instance 'orders'");
	}

	@Test
	void holdAtMostShorterThanTheLeaseIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QuorumLockEngine.builder()
				.nodes("redis://h:1")
				.defaults(LockOptions.none().lease(Duration.ofSeconds(30)).holdAtMost(Duration.ofSeconds(10)))
				.build())
			.withMessageContaining("defaults: holdAtMost 10000 ms is shorter than lease 30000 ms");
	}

	/** Three masters nobody listens on: building works, every round fails at once. */
	private static QuorumLockEngine.Builder threeDownNodes() {
		return QuorumLockEngine.builder()
			.nodes("redis://127.0.0.1:1", "redis://127.0.0.1:2", "redis://127.0.0.1:3")
			.defaults(LockOptions.none().lease(Duration.ofSeconds(30)))
			.instance("slow", LockOptions.none().lease(Duration.ofSeconds(45)));
	}

	@Test
	void explicitRejoinDelayShorterThanAConfiguredLeaseIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> threeDownNodes().rejoinDelay(Duration.ofSeconds(40)).build())
			.withMessageContaining("rejoinDelay 40000 ms (quorumlock.rejoin-delay) is shorter than the lease "
					+ "45000 ms of instance 'slow'");
	}

	@Test
	void rejoinDelayOfZeroTurnsTheGuardOffWhateverTheLeases() {
		try (QuorumLockEngine locks = threeDownNodes().rejoinDelay(Duration.ZERO).build()) {
			assertThat(locks.rejoinDelay()).isZero();
			// no guard, no refusal: the request reaches the (unreachable) nodes
			assertThatExceptionOfType(QuorumUnavailableException.class)
				.isThrownBy(() -> locks.acquire(LockRequest.of("k").lease(Duration.ofMinutes(5))));
		}
	}

	@Test
	void defaultGuardIsTheLongestConfiguredLeaseAndALongerOneIsRefusedAtCallTime() {
		try (QuorumLockEngine locks = threeDownNodes().build()) {
			assertThat(locks.rejoinDelay()).isEqualTo(Duration.ofSeconds(45));
			assertThatIllegalArgumentException()
				.isThrownBy(() -> locks.acquire(LockRequest.of("k").lease(Duration.ofSeconds(60))))
				.withMessageContaining("lock key 'lock:{k}': lease 60000 ms is longer than the restart guard in "
						+ "force, 45000 ms (quorumlock.rejoin-delay)");
			assertThat(locks.rejoinDelay()).as("the guard never grows at call time").isEqualTo(Duration.ofSeconds(45));
		}
	}

	@Test
	void twoEnginesOfOneConfigurationHaveTheSameGuardWhateverEachRan() {
		try (QuorumLockEngine first = threeDownNodes().build(); QuorumLockEngine second = threeDownNodes().build()) {
			try {
				first.acquire(LockRequest.of("k").lease(Duration.ofSeconds(60)));
			}
			catch (RuntimeException ex) {
				// refused or unavailable: either way it must not move the guard
			}
			assertThat(first.rejoinDelay()).isEqualTo(second.rejoinDelay());
		}
	}

	@Test
	void declaredLeasesRaiseTheGuardAtBuildTime() {
		try (QuorumLockEngine locks = threeDownNodes().declaredLeases(List.of(Duration.ofSeconds(50))).build()) {
			assertThat(locks.rejoinDelay()).isEqualTo(Duration.ofSeconds(50));
			assertThatExceptionOfType(QuorumUnavailableException.class)
				.isThrownBy(() -> locks.acquire(LockRequest.of("k").lease(Duration.ofSeconds(50))));
		}
		assertThatIllegalArgumentException()
			.isThrownBy(() -> threeDownNodes().declaredLeases(List.of(Duration.ofSeconds(50)))
				.rejoinDelay(Duration.ofSeconds(45))
				.build())
			.withMessageContaining("is shorter than the lease 50000 ms of a declared lease");
	}

	@Test
	void singleModeHasNoGuardAndRefusesNoLease() {
		try (QuorumLockEngine single = QuorumLockEngine.builder()
			.nodes("redis://127.0.0.1:1")
			.rejoinDelay(Duration.ofSeconds(1))
			.build()) {
			assertThat(single.rejoinDelay()).isZero();
			assertThatExceptionOfType(QuorumUnavailableException.class)
				.isThrownBy(() -> single.acquire(LockRequest.of("k").lease(Duration.ofMinutes(5))));
		}
	}

	@Test
	void strictParsingKeepsCredentialsAndDatabase() {
		var uri = NodeUri.parse("rediss://app:pw@redis-2:6380/3");
		assertThat(uri.getHost()).isEqualTo("redis-2");
		assertThat(uri.getPort()).isEqualTo(6380);
		assertThat(uri.getDatabase()).isEqualTo(3);
		assertThat(uri.isSsl()).isTrue();
		// through the credentials provider: RedisURI.getUsername() is gone in Lettuce 7
		// (Spring Boot 4.1), the provider exists on both lines
		RedisCredentials credentials = ((ImmediateRedisCredentialsProvider) uri.getCredentialsProvider())
			.resolveCredentialsNow();
		assertThat(credentials.getUsername()).isEqualTo("app");
		assertThat(credentials.getPassword()).isEqualTo("pw".toCharArray());
	}

}
