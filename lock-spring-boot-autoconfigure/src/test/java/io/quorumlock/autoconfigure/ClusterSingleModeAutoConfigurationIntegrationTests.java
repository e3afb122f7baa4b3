package io.quorumlock.autoconfigure;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link QuorumLockAutoConfiguration} in single mode on a real Redis Cluster of three
 * masters, configured only by {@code spring.data.redis.cluster.nodes}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterSingleModeAutoConfigurationIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.builder().nodes(3).cluster().build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.REDIS, QuorumLockAutoConfiguration.class))
		.withPropertyValues(
				"spring.data.redis.cluster.nodes=" + String.join(",",
						redis.nodes().stream().map((node) -> node.host() + ":" + node.port()).toList()),
				"spring.data.redis.client-name=quorumlock-cluster-it",
				// a node timeout a loaded 2-core build machine's answers fit in
				BoundedWait.NODE_TIMEOUT);

	@Test
	void singleModeLocksThroughTheRegistryOnTheMasterOfEachKey() {
		this.runner.run((context) -> {
			DistributedLockRegistry registry = context.getBean(DistributedLockRegistry.class);
			Set<RedisServer> masters = new HashSet<>();
			for (int i = 0; masters.size() < redis.size(); i++) {
				String redisKey = "lock:orders:{" + i + "}";
				RedisServer master = redis.nodeForKey(redisKey);
				LockRequest request = LockRequest.of(Integer.toString(i)).name("orders");
				registry.execute(request, () -> {
					assertThat(CurrentLease.get().orElseThrow().isValid()).isTrue();
					assertThat(master.exists(redisKey)).as("%s on %s", redisKey, master).isTrue();
					assertThat(registry.tryAcquire(request)).as("re-entry within the call")
						.hasValueSatisfying((inner) -> {
							assertThat(inner.isValid()).isTrue();
							inner.release();
						});
					return null;
				});
				assertThat(master.exists(redisKey)).isFalse();
				masters.add(master);
			}
			// the application's own connection settings reached every master
			for (RedisServer master : redis.nodes()) {
				assertThat((String) master.call("CLIENT", "LIST")).contains("name=quorumlock-cluster-it");
			}
		});
	}

	@Test
	void aLockOverKeysOnSeveralMastersIsHeldAgainstAnotherApplication() {
		this.runner.run((context) -> this.runner.run((other) -> {
			DistributedLockRegistry mine = context.getBean(DistributedLockRegistry.class);
			DistributedLockRegistry theirs = other.getBean(DistributedLockRegistry.class);
			List<String> keys = List.of("1", "2", "3", "4", "5", "6");
			assertThat(keys.stream().map((key) -> redis.nodeForKey("lock:stock:{" + key + "}")).distinct())
				.as("masters of the keys")
				.hasSizeGreaterThan(1);
			try (Lease all = mine.acquire(LockRequest.of(keys).name("stock"))) {
				assertThat(all.fencingToken()).isPositive();
				for (String key : keys) {
					assertThat(theirs.tryAcquire(LockRequest.of(key).name("stock"))).isEmpty();
				}
			}
			assertThat(theirs.tryAcquire(LockRequest.of(keys).name("stock"))).hasValueSatisfying(Lease::release);
		}));
	}

}
