package io.quorumlock.testing;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link RedisServers} as a Redis Cluster: formed healthy, {@code nodeForKey} agrees with
 * the servers' own redirects, and a killed master is back with its slots after a reset.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisServersClusterTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.builder().nodes(3).cluster().build();

	@Test
	void everyMasterServesItsShareOfTheSlots() {
		assertThat(redis.isCluster()).isTrue();
		for (RedisServer node : redis.nodes()) {
			String info = (String) node.call("CLUSTER", "INFO");
			assertThat(info).contains("cluster_state:ok", "cluster_slots_assigned:16384", "cluster_known_nodes:3");
		}
		assertThat(ClusterFormation.firstSlot(1, 3)).isEqualTo(5461);
		assertThat(ClusterFormation.ownerOf(5460, 3)).isZero();
		assertThat(ClusterFormation.ownerOf(5461, 3)).isOne();
		assertThat(ClusterFormation.ownerOf(16383, 3)).isEqualTo(2);
	}

	@Test
	void nodeForKeyIsTheMasterThatAcceptsTheKeyAndTheOthersRedirect() {
		for (int i = 0; i < 20; i++) {
			String key = "k" + i;
			RedisServer owner = redis.nodeForKey(key);
			assertThat(owner.call("SET", key, "v")).isEqualTo("OK");
			for (RedisServer other : redis.nodes()) {
				if (other != owner) {
					assertThatExceptionOfType(RedisErrorReply.class).isThrownBy(() -> other.call("GET", key))
						.withMessageStartingWith("MOVED ")
						.withMessageEndingWith(":" + owner.port());
				}
			}
		}
	}

	@Test
	void aKilledMasterIsBackWithItsSlotsAfterAReset() {
		String key = "back";
		RedisServer owner = redis.nodeForKey(key);
		owner.kill();
		redis.reset();
		assertThat(owner.isRunning()).isTrue();
		assertThat(owner.call("SET", key, "v")).isEqualTo("OK");
		assertThat(redis.nodeForKey(key)).isSameAs(owner);
	}

}
