package io.quorumlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;
import io.quorumlock.LockMode;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * An exclusive lease whose key vanished unseen (an expiry its holder missed, a restart)
 * and is meanwhile held shared by others: its renewal meets a hash where its string was,
 * and the loss says so in words, beside Redis's {@code WRONGTYPE}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LostToSharedIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	@Test
	void exclusiveLeaseWhoseKeyIsNowHeldSharedIsLostWithAClearReason() {
		String key = "report-" + UUID.randomUUID();
		String redisKey = "lock:{" + key + "}";
		try (QuorumLockEngine writer = engine(); QuorumLockEngine readers = engine()) {
			Lease lease = writer
				.acquire(LockRequest.of(key).lease(DistributedLockRegistryContract.SHORT_LEASE).renew(true));
			redis.node(0).call("DEL", redisKey);
			try (Lease reader = readers
				.acquire(LockRequest.of(key).mode(LockMode.SHARED).lease(Duration.ofSeconds(30)))) {
				await().atMost(Duration.ofSeconds(20)).until(() -> !lease.isValid());
				assertThatExceptionOfType(LeaseLostException.class).isThrownBy(lease::release)
					.withMessageContaining("key '" + redisKey + "'")
					.withMessageContaining("renewal extended 0 of 1 nodes, quorum 1")
					.withMessageContaining("WRONGTYPE")
					.withMessageContaining("this lease no longer holds the key there, it is now held shared by others");
				// the writer's loss took nothing from the readers
				assertThat(reader.isValid()).isTrue();
				assertThat(redis.node(0).call("TYPE", redisKey)).isEqualTo("hash");
			}
		}
	}

	private static QuorumLockEngine engine() {
		return QuorumLockEngine.builder()
			.nodes(redis.uris())
			.rejoinDelay(Duration.ZERO)
			// not the default: the renewed lease above must fit three, whatever the
			// default is
			.nodeTimeout(Duration.ofMillis(500))
			.build();
	}

}
