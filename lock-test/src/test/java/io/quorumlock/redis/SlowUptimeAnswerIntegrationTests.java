package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The restart guard when a restarted server reads the uptime request late: two masters
 * crash, then all three restart empty, and the second client's {@code INFO server} to
 * each reaches it {@link #INFO_DELAY} late. The server's uptime is read at that later
 * moment; dating its start from when the request was sent would put the start
 * {@link #INFO_DELAY} too early and let the restarted masters vote while the first
 * client's lease is still valid (the multi-JVM soak found this as two holds of one key).
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class SlowUptimeAnswerIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	/** Unrenewed, and as long as the restart guard. */
	private static final Duration LEASE = Duration.ofSeconds(8);

	/**
	 * How late each uptime request reaches a server; below Lettuce's command timeout (ten
	 * node timeouts), so the answer is read, not timed out.
	 */
	private static final Duration INFO_DELAY = Duration.ofSeconds(3);

	private static final Duration NODE_TIMEOUT = Duration.ofMillis(500);

	private final List<SlowInfoProxy> proxies = new ArrayList<>();

	private final String key = "k" + UUID.randomUUID();

	@AfterEach
	void closeProxies() throws Exception {
		for (SlowInfoProxy proxy : this.proxies) {
			proxy.close();
		}
	}

	private static QuorumLockEngine engine(List<String> nodes) {
		return QuorumLockEngine.builder()
			.nodes(nodes)
			.nodeTimeout(NODE_TIMEOUT)
			.defaults(LockOptions.none().lease(LEASE))
			.rejoinDelay(LEASE)
			.build();
	}

	private LockRequest request() {
		return LockRequest.of(this.key).lease(LEASE).renew(false);
	}

	@Test
	void aLateUptimeAnswerDoesNotLetRestartedMastersVoteInsideTheirGuard() throws Exception {
		List<String> viaProxies = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			SlowInfoProxy proxy = new SlowInfoProxy(redis.node(i));
			this.proxies.add(proxy);
			viaProxies.add(proxy.uri());
		}
		try (QuorumLockEngine a = engine(redis.uris()); QuorumLockEngine b = engine(viaProxies)) {
			// the fixture's servers are fresh too: wait until they have been up a guard
			Lease first = await().atMost(Duration.ofSeconds(60))
				.ignoreExceptions()
				.until(() -> a.tryAcquire(request()), Optional::isPresent)
				.orElseThrow();
			await().atMost(Duration.ofSeconds(30))
				.until(() -> b.nodes().stream().filter(RegistryStatus.Node::countsTowardQuorum).count() == 3);
			this.proxies.forEach((proxy) -> proxy.slowInfo(INFO_DELAY));

			redis.node(1).kill();
			redis.node(2).kill();
			redis.node(0).restart(); // empty: the first lease is now on no master at all
			redis.node(1).restart();
			redis.node(2).restart();

			// B asks until the first lease has run out: every restarted master must stay
			// held back that long, however late its uptime answer came
			AtomicReference<String> overlap = new AtomicReference<>();
			await().atMost(LEASE.multipliedBy(3)).pollInterval(Duration.ofMillis(50)).until(() -> {
				try {
					b.tryAcquire(request()).ifPresent((second) -> {
						if (first.isValid()) {
							overlap.compareAndSet(null, "granted to B with " + first.remaining().toMillis()
									+ " ms left on the first lease");
						}
						second.release();
					});
				}
				catch (QuorumUnavailableException heldBack) {
					// expected while the restarted masters are held back
				}
				return !first.isValid();
			});
			assertThat(overlap.get()).as("a second holder while the first lease was valid").isNull();
			assertThat(this.proxies).as("uptime requests held by the proxies")
				.allSatisfy((proxy) -> assertThat(proxy.delayedInfos()).isPositive());

			// and once the guard has passed, the restarted masters vote again
			await().atMost(Duration.ofSeconds(60))
				.ignoreExceptions()
				.until(() -> b.tryAcquire(request()).map((lease) -> {
					lease.release();
					return true;
				}).orElse(false));
		}
	}

}
