package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quorumlock.Lease;
import io.quorumlock.LockRequest;
import io.quorumlock.testing.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An {@code UNSUBSCRIBE} rejected while a node's pub/sub connection is down is not lost:
 * once the connection is back, the channel nobody waits on any more is unsubscribed,
 * while a channel still waited on stays subscribed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RejectedUnsubscribeIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private QuorumLockEngine waiter;

	private QuorumLockEngine holder;

	@BeforeEach
	void start() {
		this.waiter = engine();
		this.holder = engine();
	}

	@AfterEach
	void close() {
		this.waiter.close();
		this.holder.close();
	}

	private static QuorumLockEngine engine() {
		return QuorumLockEngine.builder().nodes(redis.uris()).rejoinDelay(Duration.ZERO).build();
	}

	@Test
	void channelNoLongerWaitedOnIsUnsubscribedOnceThePubSubConnectionIsBack() throws Exception {
		String granted = "g" + UUID.randomUUID();
		String stillWaited = "w" + UUID.randomUUID();
		String grantedChannel = LockKeys.channel("lock:{" + granted + "}");
		String waitedChannel = LockKeys.channel("lock:{" + stillWaited + "}");
		Lease first = this.holder.acquire(LockRequest.of(granted));
		Lease second = this.holder.acquire(LockRequest.of(stillWaited));
		CompletableFuture<io.quorumlock.Lease> a = this.waiter
			.acquireAsync(LockRequest.of(granted).waitAtMost(Duration.ofSeconds(40)));
		CompletableFuture<io.quorumlock.Lease> b = this.waiter
			.acquireAsync(LockRequest.of(stillWaited).waitAtMost(Duration.ofSeconds(40)));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> subscribers(0, grantedChannel) == 1 && subscribers(0, waitedChannel) == 1);
		// node 0 goes down: the UNSUBSCRIBE that follows the grant cannot reach it
		redis.node(0).kill();
		first.release();
		Lease lease = a.get(10, TimeUnit.SECONDS);
		redis.node(0).restart();
		// the pub/sub connection is back once the channel still waited on is subscribed
		// again
		await().atMost(Duration.ofSeconds(20)).until(() -> subscribers(0, waitedChannel) == 1);
		await().atMost(Duration.ofSeconds(10)).until(() -> subscribers(0, grantedChannel) == 0);
		assertThat(subscribers(0, waitedChannel)).isEqualTo(1);
		lease.release();
		second.release();
		b.get(10, TimeUnit.SECONDS).release();
	}

	private static long subscribers(int node, String channel) {
		List<?> reply = (List<?>) redis.node(node).call("PUBSUB", "NUMSUB", channel);
		return (Long) reply.get(1);
	}

}
