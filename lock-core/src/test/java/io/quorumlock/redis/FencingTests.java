package io.quorumlock.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing against scripted rounds: a lease of several keys takes the largest of their
 * counters and raises every key's counter to it, on one node as on many, so that a later
 * holder of any of its keys gets a larger token.
 */
class FencingTests {

	@Test
	void aLeaseOfOneKeyOnOneNodeNeedsNoRaise() {
		EngineParts parts = new EngineParts(1);
		RedisLease lease = parts.start(EngineParts.request(Duration.ofSeconds(3), Duration.ZERO, "a")).join();
		long token = lease.fencingTokenAsync().join();
		assertThat(parts.voters.calls).contains("fenceIncrement lock:{a}").noneMatch((c) -> c.startsWith("fenceRaise"));
		assertThat(token).isPositive();
	}

	@Test
	void aLeaseOfSeveralKeysOnOneNodeRaisesEveryKeysCounterToItsToken() {
		EngineParts parts = new EngineParts(1);
		RedisLease lease = parts.start(EngineParts.request(Duration.ofSeconds(3), Duration.ZERO, "a", "b")).join();
		long token = lease.fencingTokenAsync().join();
		assertThat(parts.voters.calls).contains("fenceRaise lock:{a} " + token, "fenceRaise lock:{b} " + token);
	}

	@Test
	void oneYesOneNotMineAndOneSilentMasterIsNoLossButARetry() {
		EngineParts parts = new EngineParts(3);
		RedisLease lease = parts.start(EngineParts.request(Duration.ofSeconds(3), Duration.ZERO, "a")).join();
		// one master still holds it, one answers "not mine" (it never granted it), one
		// is silent and may hold it: only an answer decides
		parts.voters.thenFenceIncrement(1, 1);
		java.util.concurrent.CompletableFuture<Long> token = lease.fencingTokenAsync();
		assertThat(token).isNotDone();
		assertThat(lease.lost()).isNull();
		parts.timers.advanceMillis(20);
		assertThat(token.join()).isPositive();
		assertThat(lease.lost()).isNull();
		assertThat(parts.voters.calls).filteredOn((c) -> c.startsWith("fenceIncrement")).hasSize(2);
	}

	@Test
	void aMajorityAnsweringGoneIsALossThatIsNotARenewalOutcome() {
		EngineParts parts = new EngineParts(3);
		RedisLease lease = parts.start(EngineParts.request(Duration.ofSeconds(3), Duration.ZERO, "a")).join();
		parts.voters.thenFenceIncrement(1, 2);
		assertThat(lease.fencingTokenAsync()).isCompletedExceptionally();
		assertThat(lease.lost()).isNotNull();
		assertThat(lease.lost().foundByRenewal()).isFalse();
		assertThat(lease.lost().getMessage()).contains("fencing found the lease gone on 2 of 3 nodes");
	}

}
