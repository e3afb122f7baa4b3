package io.quorumlock.redis;

import java.math.BigInteger;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lease tokens are 20 bytes (160 bits) drawn from {@link SecureRandom} for each
 * acquisition, written to Redis as 40 hex characters, and never repeat.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TokensIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	@Test
	void eachTokenIsTwentyBytesFromTheSecureRandom() {
		List<byte[]> drawn = new ArrayList<>();
		SecureRandom recording = new SecureRandom() {
			@Override
			public void nextBytes(byte[] bytes) {
				super.nextBytes(bytes);
				drawn.add(bytes.clone());
			}
		};
		Tokens tokens = new Tokens(recording);
		for (int i = 0; i < 100; i++) {
			String token = tokens.next();
			assertThat(drawn).hasSize(i + 1);
			assertThat(drawn.get(i)).hasSize(20);
			assertThat(token).isEqualTo(HexFormat.of().formatHex(drawn.get(i)));
		}
	}

	@Test
	void everyAcquisitionGetsANewUnguessableToken() {
		int acquisitions = 2000;
		Set<String> seen = new HashSet<>();
		long ones = 0;
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofSeconds(1)) // a loaded machine must not fail this
												// test
			.build()) {
			for (int i = 0; i < acquisitions; i++) {
				Lease lease = engine.acquire(LockRequest.of("token").renew(false));
				String token = ((RedisLease) lease).token();
				if (i % 200 == 0) {
					assertThat(redis.node(0).get("lock:{token}")).isEqualTo(token);
				}
				lease.release();
				assertThat(token).matches("[0-9a-f]{40}");
				assertThat(seen.add(token)).as("token %s repeated at acquisition %d", token, i).isTrue();
				ones += new BigInteger(token, 16).bitCount();
			}
		}
		// 320,000 random bits: half of them ones, within 2 % (over 10 standard
		// deviations)
		double share = ones / (double) (acquisitions * 160L);
		assertThat(share).isBetween(0.49, 0.51);
	}

}
