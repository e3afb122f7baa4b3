package io.quorumlock.redis;

import java.time.Duration;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider.ImmediateRedisCredentialsProvider;
import org.junit.jupiter.api.Test;

import io.quorumlock.LockOptions;

import static org.assertj.core.api.Assertions.assertThat;
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
			.withMessageContaining("redis://***@h:notaport")
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
			.withMessageContaining("defaults: nodeTimeout 50 ms must be below a third of the lease 150 ms");
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
			.withMessageContaining("holdAtMost 10000 ms is shorter than the lease 30000 ms");
	}

	@Test
	void strictParsingKeepsCredentialsAndDatabase() {
		var uri = QuorumLockEngine.Builder.parseNodeUri("rediss://app:pw@redis-2:6380/3");
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
