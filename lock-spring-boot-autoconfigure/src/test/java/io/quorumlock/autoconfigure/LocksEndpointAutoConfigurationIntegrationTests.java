package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.actuate.LocksEndpoint;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LocksEndpointAutoConfiguration} on three real masters: what the endpoint reports
 * and what its force-unlock deletes. The wiring alone, without Redis, is in
 * {@link LocksEndpointAutoConfigurationTests}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LocksEndpointAutoConfigurationIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final ApplicationContextRunner runner = ObservabilityContexts.runner(redis);

	private final String key = "secret-order-" + UUID.randomUUID();

	@Test
	void runWhenEndpointExposedShouldRegisterReadOnlyEndpointByDefault() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=locks").run((context) -> {
			assertThat(context).hasSingleBean(LocksEndpoint.class);
			try (Lease lease = context.getBean(DistributedLockRegistry.class).acquire(request().name("orders"))) {
				LocksEndpoint.LocksDescriptor locks = context.getBean(LocksEndpoint.class).locks(null);
				assertThat(locks.mode()).isEqualTo("quorum");
				assertThat(locks.nodes()).hasSize(3);
				assertThat(locks.leases()).singleElement()
					.satisfies((held) -> assertThat(held.keys()).containsExactly("lock:orders:{" + this.key + "}"));
			}
		});
	}

	@Test
	void runWhenEndpointAccessUnrestrictedShouldForceALockOpenOnEveryNode() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=locks",
					"management.endpoint.locks.access=UNRESTRICTED")
			.run((context) -> {
				assertThat(context).hasSingleBean(LocksEndpoint.class);
				String redisKey = "lock:orders:{" + this.key + "}";
				Lease lease = context.getBean(DistributedLockRegistry.class)
					.acquire(request().name("orders").renew(false));
				LocksEndpoint.ForceUnlockDescriptor result = context.getBean(LocksEndpoint.class)
					.forceUnlock(SecurityContext.NONE, redisKey.split("/"));
				assertThat(result.deletedOnNodes()).isEqualTo(3);
				for (int i = 0; i < 3; i++) {
					assertThat(redis.node(i).exists(redisKey)).isFalse();
				}
				lease.releaseAsync();
			});
	}

	/**
	 * A request that waits for contention. These tests are about wiring, not timing, so
	 * the runners also give each node a generous 1 s to answer: a busy machine must not
	 * turn a grant into a quorum failure, which the engine reports at once.
	 */
	private LockRequest request() {
		return LockRequest.of(this.key).waitAtMost(Duration.ofSeconds(10));
	}

}
