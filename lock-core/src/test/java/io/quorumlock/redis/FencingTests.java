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

}
