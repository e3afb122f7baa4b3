package io.quorumlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.LeaseLostException;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code execute()}: the action's own failure is what the caller gets; a lease lost
 * meanwhile is kept as suppressed, never in its place.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ExecuteOutcomeIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	private QuorumLockEngine locks;

	private LockRequest request;

	@BeforeEach
	void start() {
		this.locks = QuorumLockEngine.builder()
			.nodes(redis.uris())
			// not the default: the short lease below must fit three, whatever the default
			// is
			.nodeTimeout(Duration.ofMillis(500))
			.build();
		this.request = LockRequest.of("k" + UUID.randomUUID())
			.lease(DistributedLockRegistryContract.SHORT_LEASE)
			.renew(false);
	}

	@AfterEach
	void close() {
		this.locks.close();
	}

	@Test
	void actionFailureWinsOverTheLeaseLoss() {
		IllegalStateException boom = new IllegalStateException("boom");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> this.locks.execute(this.request, () -> {
			await().atMost(Duration.ofSeconds(10)).until(this::expired);
			throw boom;
		}))
			.isSameAs(boom)
			.satisfies((ex) -> assertThat(ex.getSuppressed()).hasAtLeastOneElementOfType(LeaseLostException.class));
	}

	@Test
	void leaseLossIsTheOutcomeOfAnActionThatSucceeded() {
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> this.locks.execute(this.request, () -> {
			await().atMost(Duration.ofSeconds(10)).until(this::expired);
			return "done";
		}));
	}

	private boolean expired() {
		return this.locks.leases().stream().noneMatch((held) -> held.remaining().compareTo(Duration.ZERO) > 0);
	}

}
