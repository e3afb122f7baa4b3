package io.quorumlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockListener;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Listeners hear of a grant before the caller gets it; an unrenewed lease whose validity
 * ran out meanwhile (a slow listener, a starved machine) never reaches the caller.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SlowListenerIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	@Test
	void anUnrenewedLeaseThatExpiredBehindASlowListenerIsNotHandedOut() {
		LockListener slow = new LockListener() {
			@Override
			public void onAcquired(LockRequest request, Lease lease, Duration waited) {
				// as slow as it takes for the lease to run out
				await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
			}
		};
		String key = "k" + UUID.randomUUID();
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			// not the default: the short lease below must fit three, whatever the default
			// is
			.nodeTimeout(Duration.ofMillis(500))
			.listener(slow)
			.build()) {
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> engine
					.acquire(LockRequest.of(key).lease(DistributedLockRegistryContract.SHORT_LEASE).renew(false)))
				.withMessageContaining("its validity ran out before it could be handed over");
			// and it was released, not left to expire
			await().atMost(Duration.ofSeconds(5)).until(() -> !redis.node(0).exists("lock:{" + key + "}"));
			assertThat(engine.leases()).isEmpty();
		}
	}

}
