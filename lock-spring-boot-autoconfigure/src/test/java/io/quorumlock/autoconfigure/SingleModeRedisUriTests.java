package io.quorumlock.autoconfigure;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.lettuce.core.RedisCredentialsProvider.ImmediateRedisCredentialsProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.autoconfigure.data.redis.RedisProperties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Single mode's Lettuce URI, built from Boot's {@link RedisConnectionDetails} and
 * {@link RedisProperties}.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SingleModeRedisUriTests {

	@Test
	void standaloneWithDatabaseCredentialsTlsAndClientName() {
		RedisProperties properties = new RedisProperties();
		properties.getSsl().setEnabled(true);
		properties.setClientName("orders");
		RedisURI uri = SingleModeConfiguration.redisUri(
				details(RedisConnectionDetails.Standalone.of("redis-1", 6380, 3), null, null, "app", "s3cret"),
				properties);
		assertThat(uri.getHost()).isEqualTo("redis-1");
		assertThat(uri.getPort()).isEqualTo(6380);
		assertThat(uri.getDatabase()).isEqualTo(3);
		assertThat(uri.isSsl()).isTrue();
		assertThat(uri.getClientName()).isEqualTo("orders");
		RedisCredentials credentials = ((ImmediateRedisCredentialsProvider) uri.getCredentialsProvider())
			.resolveCredentialsNow();
		assertThat(credentials.getUsername()).isEqualTo("app");
		assertThat(credentials.getPassword()).isEqualTo("s3cret".toCharArray());
		assertThat(uri.toString()).doesNotContain("s3cret");
	}

	@Test
	void sentinelKeepsMasterNameAndSentinels() {
		RedisConnectionDetails.Sentinel sentinel = new RedisConnectionDetails.Sentinel() {

			@Override
			public int getDatabase() {
				return 1;
			}

			@Override
			public String getMaster() {
				return "mymaster";
			}

			@Override
			public String getUsername() {
				return null;
			}

			@Override
			public String getPassword() {
				return "sentinel-secret";
			}

			@Override
			public List<RedisConnectionDetails.Node> getNodes() {
				return List.of(new RedisConnectionDetails.Node("s1", 26379),
						new RedisConnectionDetails.Node("s2", 26380));
			}

		};
		RedisURI uri = SingleModeConfiguration.redisUri(details(null, sentinel, null, null, null),
				new RedisProperties());
		assertThat(uri.getSentinelMasterId()).isEqualTo("mymaster");
		assertThat(uri.getSentinels()).extracting(RedisURI::getHost).containsExactly("s1", "s2");
		assertThat(uri.getDatabase()).isEqualTo(1);
		assertThat(uri.getSentinels()).allSatisfy((one) -> assertThat(
				((ImmediateRedisCredentialsProvider) one.getCredentialsProvider()).resolveCredentialsNow()
					.getPassword())
			.isEqualTo("sentinel-secret".toCharArray()));
	}

	@Test
	void clusterSeedsEachCarryCredentialsTlsAndClientName() {
		RedisConnectionDetails.Cluster cluster = () -> List.of(new RedisConnectionDetails.Node("c1", 7000),
				new RedisConnectionDetails.Node("c2", 7001));
		RedisProperties properties = new RedisProperties();
		properties.getSsl().setEnabled(true);
		properties.setClientName("orders");
		List<RedisURI> seeds = SingleModeConfiguration.clusterUris(details(null, null, cluster, "app", "s3cret"),
				properties);
		assertThat(seeds).extracting(RedisURI::getHost).containsExactly("c1", "c2");
		assertThat(seeds).extracting(RedisURI::getPort).containsExactly(7000, 7001);
		assertThat(seeds).allSatisfy((seed) -> {
			assertThat(seed.isSsl()).isTrue();
			assertThat(seed.getClientName()).isEqualTo("orders");
			RedisCredentials credentials = ((ImmediateRedisCredentialsProvider) seed.getCredentialsProvider())
				.resolveCredentialsNow();
			assertThat(credentials.getUsername()).isEqualTo("app");
			assertThat(credentials.getPassword()).isEqualTo("s3cret".toCharArray());
		});
	}

	@Test
	void clusterWithoutNodesIsRefusedNamingTheProperty() {
		RedisConnectionDetails.Cluster cluster = List::of;
		assertThatExceptionOfType(InvalidQuorumLockPropertyException.class)
			.isThrownBy(() -> SingleModeConfiguration.clusterUris(details(null, null, cluster, null, null),
					new RedisProperties()))
			.withMessageContaining("spring.data.redis.cluster.nodes")
			.withMessageContaining("needs at least one seed node");
	}

	private static RedisConnectionDetails details(RedisConnectionDetails.Standalone standalone,
			RedisConnectionDetails.Sentinel sentinel, RedisConnectionDetails.Cluster cluster, String username,
			String password) {
		return new RedisConnectionDetails() {

			@Override
			public String getUsername() {
				return username;
			}

			@Override
			public String getPassword() {
				return password;
			}

			@Override
			public Standalone getStandalone() {
				return standalone;
			}

			@Override
			public Sentinel getSentinel() {
				return sentinel;
			}

			@Override
			public Cluster getCluster() {
				return cluster;
			}

		};
	}

}
