package io.quorumlock.sample.embedded;

import org.junit.jupiter.api.Test;

import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the zero-setup masters start and when they back off.
 */
class EmbeddedRedisListenerTests {

	@Test
	void startsWhenNothingIsConfigured() {
		assertThat(EmbeddedRedisListener.backOffReason(new MockEnvironment())).isNull();
	}

	@Test
	void backsOffWhenDisabled() {
		assertThat(reason("sample.embedded-redis.enabled", "false")).isEqualTo("sample.embedded-redis.enabled=false");
	}

	@Test
	void backsOffWhenQuorumlockIsDisabled() {
		assertThat(reason("quorumlock.enabled", "false")).isEqualTo("quorumlock.enabled=false");
	}

	@Test
	void backsOffWhenNodesAreListed() {
		assertThat(reason("quorumlock.nodes", "redis://redis-1:6379,redis://redis-2:6379"))
			.isEqualTo("quorumlock.nodes is set");
	}

	@Test
	void backsOffWhenNodesAreListedAsObjects() {
		assertThat(reason("quorumlock.nodes[0].uri", "redis://redis-1:6379")).isEqualTo("quorumlock.nodes is set");
	}

	@Test
	void backsOffWhenTheApplicationsRedisIsConfigured() {
		assertThat(reason("spring.data.redis.host", "redis.internal")).isEqualTo("spring.data.redis.host is set");
		assertThat(reason("spring.data.redis.url", "redis://redis.internal:6379"))
			.isEqualTo("spring.data.redis.url is set");
	}

	@Test
	void backsOffInTheExternalProfile() {
		MockEnvironment environment = new MockEnvironment();
		environment.setActiveProfiles("external");
		assertThat(EmbeddedRedisListener.backOffReason(environment)).isEqualTo("the 'external' profile is active");
	}

	@Test
	void backsOffInTheEtcdProfileOrWithEtcdEndpoints() {
		MockEnvironment environment = new MockEnvironment();
		environment.setActiveProfiles("etcd");
		assertThat(EmbeddedRedisListener.backOffReason(environment))
			.isEqualTo("the 'etcd' profile is active: the locks live on etcd");
		assertThat(reason("quorumlock.etcd.endpoints", "http://etcd-1:2379"))
			.isEqualTo("quorumlock.etcd.endpoints is set");
	}

	@Test
	void otherPropertiesDoNotMatter() {
		assertThat(reason("quorumlock.lease", "10s")).isNull();
	}

	private static String reason(String name, String value) {
		return EmbeddedRedisListener.backOffReason(new MockEnvironment().withProperty(name, value));
	}

}
