package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockListener;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRequest;
import io.quorumlock.RegistryStatus;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The whole contract on three masters where quorumlock logs in as an ACL user that may
 * run only the commands it needs, on keys and channels under its prefix: acquire, a
 * waiter woken by the release message, renewal, fencing, release, and the restart guard's
 * {@code INFO}. The user's rules are {@link #RULES}, the line the documentation gives.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MinimalAclIntegrationTests {

	/**
	 * What quorumlock sends: SCRIPT LOAD (every script, on every connection), EVALSHA
	 * (the scripts), SET (an acquisition without the restart guard), INFO (the server's
	 * state), SUBSCRIBE and UNSUBSCRIBE (waiters); what the scripts call: GET, SET, DEL,
	 * PUBLISH, PEXPIRE, PTTL, EXISTS, TIME, INCR, TYPE, HGET, HSET, HDEL, HGETALL (shared
	 * holds and the restart guard's dataset marker). HELLO and AUTH need no rule.
	 */
	static final String[] RULES = { "on", ">acl-test-pw", "resetkeys", "~lock:*", "resetchannels", "&lock:*", "-@all",
			"+script|load", "+evalsha", "+set", "+info", "+subscribe", "+unsubscribe", "+get", "+del", "+publish",
			"+pexpire", "+pttl", "+exists", "+time", "+incr", "+type", "+hget", "+hset", "+hdel", "+hgetall" };

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final AtomicInteger renewals = new AtomicInteger();

	private final List<String> nodeErrors = new CopyOnWriteArrayList<>();

	@BeforeEach
	void createUser() {
		for (RedisServer node : redis.nodes()) {
			List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", "quorumlock", "reset"));
			command.addAll(List.of(RULES));
			node.call(command.toArray(String[]::new));
		}
	}

	@Test
	void userWithOnlyTheNeededCommandsServesTheWholeContract() throws Exception {
		List<String> uris = redis.nodes()
			.stream()
			.map((node) -> "redis://quorumlock:acl-test-pw@127.0.0.1:" + node.port())
			.toList();
		try (QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(uris)
			// the restart guard covers every lease in use, the default one included
			.defaults(LockOptions.none().lease(Duration.ofSeconds(3)))
			.rejoinDelay(Duration.ofSeconds(3))
			.nodeTimeout(Duration.ofMillis(500))
			// a waiter that polled would not try again within its wait: only the
			// release message can wake it in time
			.retryDelay(Duration.ofSeconds(30), Duration.ofSeconds(30))
			.listener(new LockListener() {
				@Override
				public void onRenewed(LockRequest request, Lease lease) {
					MinimalAclIntegrationTests.this.renewals.incrementAndGet();
				}

				@Override
				public void onNodeError(String node, Throwable error) {
					MinimalAclIntegrationTests.this.nodeErrors.add(node + ": " + error);
				}
			})
			.build()) {
			// restart guard: every master held back once (they started empty), then
			// marked
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(engine.nodes()).allMatch(RegistryStatus.Node::voting));

			Lease lease = engine.acquire(LockRequest.of("acl").lease(Duration.ofSeconds(3)).renew(true));
			// granted at a quorum; the last master's SET follows within the node timeout
			for (RedisServer node : redis.nodes()) {
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(node.get("lock:{acl}")).hasSize(40));
			}
			long token = lease.fencingToken();
			assertThat(token).isPositive();

			CompletableFuture<Lease> waiter = CompletableFuture
				.supplyAsync(() -> engine.acquire(LockRequest.of("acl").waitAtMost(Duration.ofSeconds(30))));
			// renewal keeps the lease past its first 3 s
			await().atMost(Duration.ofSeconds(20)).until(() -> this.renewals.get() >= 3);
			assertThat(lease.isValid()).isTrue();
			assertThat(waiter).isNotDone();

			lease.release();
			Lease next = waiter.get(10, TimeUnit.SECONDS);
			assertThat(next.fencingToken()).isGreaterThan(token);
			next.release();
			// release returns once a quorum deleted the key; the last master follows
			// within the node timeout
			for (RedisServer node : redis.nodes()) {
				await().atMost(Duration.ofSeconds(5)).until(() -> !node.exists("lock:{acl}"));
			}
		}
		assertThat(this.nodeErrors).isEmpty();
	}

}
