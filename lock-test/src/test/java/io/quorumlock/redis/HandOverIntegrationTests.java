package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import io.quorumlock.Lease;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * On one standalone master, a release hands the key straight to the waiter that queued
 * first, in any process: the next holder learns of its grant from the release's message,
 * without a round of its own, and waiters are served in the order they queued. A waiter
 * that gives up leaves the queue and nothing held behind it; an entry whose waiter
 * stopped refreshing it is passed over.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HandOverIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(1);

	private final List<QuorumLockEngine> engines = new ArrayList<>();

	private final String key = "k" + UUID.randomUUID();

	private final String lockKey = "lock:{" + this.key + "}";

	private final String queueKey = this.lockKey + ":queue";

	/** A separate engine: its own connections, as another process would have. */
	private QuorumLockEngine engine() {
		QuorumLockEngine engine = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofMillis(500))
			.rejoinDelay(Duration.ZERO)
			.build();
		this.engines.add(engine);
		return engine;
	}

	@AfterEach
	void close() {
		this.engines.forEach(QuorumLockEngine::close);
	}

	private LockRequest request(Duration wait) {
		return LockRequest.of(this.key).lease(Duration.ofSeconds(10)).waitAtMost(wait);
	}

	/** Queue entries by waiter (the counter field left out). */
	@SuppressWarnings("unchecked")
	private Map<String, String> queue() {
		Object reply = redis.node(0).call("HGETALL", this.queueKey);
		Map<String, String> entries = new java.util.LinkedHashMap<>();
		List<Object> flat = (List<Object>) reply;
		for (int i = 0; i + 1 < flat.size(); i += 2) {
			if (!"#".equals(flat.get(i))) {
				entries.put((String) flat.get(i), (String) flat.get(i + 1));
			}
		}
		return entries;
	}

	private Object held() {
		return redis.node(0).call("GET", this.lockKey);
	}

	@Test
	void aReleaseHandsTheKeyToTheWaiterThatQueuedFirstInAnyProcess() throws Exception {
		Lease first = engine().acquire(request(Duration.ZERO));
		CompletableFuture<Lease> second = engine().acquireAsync(request(Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 1);
		String secondWaiter = queue().keySet().iterator().next();
		CompletableFuture<Lease> third = engine().acquireAsync(request(Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 2);

		first.release();
		// the release itself set the key to the first waiter's token: no moment free
		assertThat((String) held()).startsWith(secondWaiter);
		Lease secondLease = second.get(10, TimeUnit.SECONDS);
		assertThat(third).isNotDone();
		assertThat(queue()).hasSize(1).doesNotContainKey(secondWaiter);
		assertThat(secondLease.isValid()).isTrue();
		assertThat(secondLease.remaining()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10));
		long secondFence = secondLease.fencingToken();

		secondLease.release();
		Lease thirdLease = third.get(10, TimeUnit.SECONDS);
		assertThat(queue()).isEmpty();
		assertThat(thirdLease.fencingToken()).isGreaterThan(secondFence);
		thirdLease.release();
		assertThat(held()).as("released to nobody: deleted").isNull();
	}

	@Test
	void aKeyContendedFromTwoProcessesIsSubscribedOncePerProcessNotOncePerTurn() throws Exception {
		redis.node(0).call("CONFIG", "RESETSTAT");
		List<CompletableFuture<Integer>> loops = new ArrayList<>();
		for (int p = 0; p < 2; p++) {
			QuorumLockEngine engine = engine();
			loops.add(CompletableFuture.supplyAsync(() -> {
				int turns = 0;
				for (int i = 0; i < 100; i++) {
					engine.acquire(request(Duration.ofSeconds(10))).release();
					turns++;
				}
				return turns;
			}));
		}
		for (CompletableFuture<Integer> loop : loops) {
			assertThat(loop.get(50, TimeUnit.SECONDS)).isEqualTo(100);
		}
		String stats = (String) redis.node(0).call("INFO", "commandstats");
		long handOvers = calls(stats, "publish");
		assertThat(calls(stats, "subscribe")).as("SUBSCRIBEs for %d releases", handOvers).isLessThanOrEqualTo(10);
	}

	/** Calls of {@code command} in an {@code INFO commandstats} text. */
	private static long calls(String stats, String command) {
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith("cmdstat_" + command + ":calls=")) {
				return Long.parseLong(line.substring(line.indexOf('=') + 1, line.indexOf(',')));
			}
		}
		return 0;
	}

	@Test
	void aWaiterThatGivesUpLeavesTheQueueAndNothingHeld() throws Exception {
		Lease first = engine().acquire(request(Duration.ZERO));
		QuorumLockEngine patient = engine();
		assertThatThrownBy(() -> patient.acquire(request(Duration.ofMillis(700))))
			.isInstanceOf(LockNotAcquiredException.class);
		assertThat(queue()).as("the waiter left the queue when it gave up").isEmpty();
		first.release();
		assertThat(held()).isNull();
		assertThat(patient.tryAcquire(request(Duration.ZERO))).as("the key is free for anyone").isPresent();
	}

	@Test
	void anEntryNoLongerRefreshedIsPassedOverAndOneRefreshedIsServed() throws Exception {
		Lease first = engine().acquire(request(Duration.ZERO));
		// a waiter that died a while ago: its entry's time is long past
		String dead = "00000000000000000000000000000000000000aa";
		redis.node(0).call("HSET", this.queueKey, "0000000000000000", "1 " + dead + " 30000 1", "#", "1");
		CompletableFuture<Lease> live = engine().acquireAsync(request(Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 2);
		first.release();
		assertThat(live.get(10, TimeUnit.SECONDS).isValid()).isTrue();
		assertThat(queue()).as("the dead waiter's entry was removed on the way").isEmpty();
	}

	@Test
	void aHandOverHeardOnAReconnectedPubSubConnectionIsNotTakenAsAGrant() throws Exception {
		Lease first = engine().acquire(request(Duration.ZERO));
		// a waiter that refreshes its entry only every 5 s: no round of it between the
		// reconnect below and the release
		QuorumLockEngine slow = QuorumLockEngine.builder()
			.nodes(redis.uris())
			.nodeTimeout(Duration.ofMillis(500))
			.rejoinDelay(Duration.ZERO)
			.retryDelay(Duration.ofSeconds(5), Duration.ofSeconds(5))
			.build();
		this.engines.add(slow);
		CompletableFuture<Lease> waiting = slow.acquireAsync(request(Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 1);
		String handed = queue().values().iterator().next().split(" ")[1];
		String channel = this.lockKey + ":released";
		// the pub/sub connection drops and comes back: a message heard on it now may
		// come from another server process than the one that took the entry
		redis.node(0).call("CLIENT", "KILL", "TYPE", "pubsub");
		await().atMost(Duration.ofSeconds(10)).until(() -> numsub(channel) == 1);
		first.release();
		Lease lease = waiting.get(10, TimeUnit.SECONDS);
		assertThat(lease.isValid()).isTrue();
		assertThat(held()).as("granted by a round of its own, not by the message").isNotEqualTo(handed);
		lease.release();
	}

	@SuppressWarnings("unchecked")
	private long numsub(String channel) {
		List<Object> reply = (List<Object>) redis.node(0).call("PUBSUB", "NUMSUB", channel);
		return (Long) reply.get(1);
	}

	@Test
	void aHandOverToATokenTheWaiterCannotUseIsReleasedAgain() throws Exception {
		Lease first = engine().acquire(request(Duration.ZERO));
		CompletableFuture<Lease> waiting = engine().acquireAsync(request(Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 1);
		// the entry now names a token of this waiter that no round of it sent (as a
		// stale entry would after a lost reply): handed that token, the waiter must not
		// take it as its grant, and must not leave the key held by it
		String waiter = queue().keySet().iterator().next();
		String[] fields = queue().get(waiter).split(" ");
		String stale = waiter + "ffffffffffffffffffffffff";
		redis.node(0)
			.call("HSET", this.queueKey, waiter,
					fields[0] + " " + stale + " " + fields[2] + " " + fields[3] + " " + fields[4]);
		first.release();
		// the waiter releases the stale grant and takes the key with a round of its own
		Lease lease = waiting.get(10, TimeUnit.SECONDS);
		assertThat((String) held()).startsWith(waiter).isNotEqualTo(stale);
		assertThat(lease.isValid()).isTrue();
		lease.release();
	}

}
