package io.quorumlock.redis;

import java.math.BigInteger;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lease tokens are 20 bytes (160 bits) drawn from {@link SecureRandom} (in batches), one
 * slice per acquisition, written to Redis as 40 hex characters, and never repeat.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TokensIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	@Test
	void eachTokenIsTwentyBytesFromTheSecureRandomHandedOutOnce() {
		List<byte[]> drawn = new ArrayList<>();
		SecureRandom recording = new SecureRandom() {
			@Override
			public void nextBytes(byte[] bytes) {
				super.nextBytes(bytes);
				drawn.add(bytes.clone());
			}
		};
		Tokens tokens = new Tokens(recording);
		int count = 3 * Tokens.BATCH + 5;
		List<String> issued = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			issued.add(tokens.next());
		}
		// one thread uses one pool: its tokens are the draws, 20 bytes at a time, in
		// order
		assertThat(drawn).hasSize(4).allSatisfy((batch) -> assertThat(batch).hasSize(20 * Tokens.BATCH));
		for (int i = 0; i < count; i++) {
			byte[] batch = drawn.get(i / Tokens.BATCH);
			int from = (i % Tokens.BATCH) * 20;
			assertThat(issued.get(i)).isEqualTo(HexFormat.of().formatHex(batch, from, from + 20));
		}
		assertThat(new HashSet<>(issued)).hasSize(count);
	}

	@Test
	void threadsNeverShareAToken() throws Exception {
		Tokens tokens = new Tokens(new SecureRandom());
		int threads = 8;
		int each = 5 * Tokens.BATCH;
		Set<String> seen = ConcurrentHashMap.newKeySet();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				done.add(pool.submit(() -> {
					for (int i = 0; i < each; i++) {
						assertThat(seen.add(tokens.next())).isTrue();
					}
				}));
			}
			for (Future<?> f : done) {
				f.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(seen).hasSize(threads * each).allSatisfy((token) -> assertThat(token).matches("[0-9a-f]{40}"));
	}

	@Test
	void everyAcquisitionGetsANewUnguessableToken() {
		int acquisitions = 2000;
		Set<String> seen = new HashSet<>();
		long ones = 0;
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			// a loaded machine must not fail this test
			.nodeTimeout(Duration.ofSeconds(1))
			.build()) {
			for (int i = 0; i < acquisitions; i++) {
				Lease lease = engine.acquire(LockRequest.of("token").renew(false));
				String token = ((RedisLease) lease).token(0);
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
