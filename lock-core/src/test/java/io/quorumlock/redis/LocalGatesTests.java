package io.quorumlock.redis;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;

import io.quorumlock.LockNotAcquiredException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Threads of one JVM queue locally for a key, first come first served, and an idle key
 * leaves nothing behind.
 */
class LocalGatesTests {

	private final LocalGates gates = new LocalGates();

	@Test
	void gatesPassInArrivalOrderAndDisappearWhenIdle() {
		assertThat(this.gates.tryEnter("k")).isTrue();
		assertThat(this.gates.tryEnter("k")).isFalse();
		CompletableFuture<Void> second = this.gates.enter("k");
		CompletableFuture<Void> third = this.gates.enter("k");
		assertThat(second).isNotDone();
		this.gates.leave("k");
		assertThat(second).isCompleted();
		assertThat(third).isNotDone();
		this.gates.leave("k");
		assertThat(third).isCompleted();
		this.gates.leave("k");
		assertThat(this.gates.size()).isZero();
	}

	@Test
	void waiterThatGaveUpIsPassedOver() {
		this.gates.enter("k").join();
		CompletableFuture<Void> gaveUp = this.gates.enter("k");
		CompletableFuture<Void> next = this.gates.enter("k");
		assertThat(gaveUp.completeExceptionally(new CancellationException())).isTrue();
		this.gates.leave("k");
		assertThat(next).isCompleted();
		this.gates.leave("k");
		assertThat(this.gates.size()).isZero();
	}

	@Test
	void secondCallerOfTheProcessWaitsLocallyAndOnlyTheOwnerTalksToRedis() {
		EngineParts parts = new EngineParts(3);
		RedisLease first = parts.start(EngineParts.request(Duration.ofSeconds(3), Duration.ZERO, "k")).join();
		CompletableFuture<RedisLease> second = parts
			.start(EngineParts.request(Duration.ofSeconds(3), Duration.ofSeconds(5), "k"));
		CompletableFuture<RedisLease> third = parts
			.start(EngineParts.request(Duration.ofSeconds(3), Duration.ZERO, "k"));
		assertThatExceptionOfType(CompletionException.class).isThrownBy(third::join)
			.withCauseInstanceOf(LockNotAcquiredException.class)
			.withMessageContaining("held by another caller in this process");
		assertThat(parts.voters.count("acquire lock:{k}")).as("only the owner asked Redis").isOne();
		first.release();
		parts.timers.runDue();
		assertThat(second.join().isValid()).isTrue();
		assertThat(parts.voters.count("acquire lock:{k}")).isEqualTo(2);
	}

	@Test
	void waitRunningOutInTheLocalQueueIsContention() {
		EngineParts parts = new EngineParts(3);
		parts.start(EngineParts.request(Duration.ofSeconds(3), Duration.ZERO, "k")).join();
		CompletableFuture<RedisLease> queued = parts
			.start(EngineParts.request(Duration.ofSeconds(3), Duration.ofMillis(200), "k"));
		parts.timers.advanceMillis(200);
		assertThatExceptionOfType(CompletionException.class).isThrownBy(queued::join)
			.withMessageContaining("queued behind another caller in this process");
		parts.voters.voting = 1;
		CompletableFuture<RedisLease> starved = parts
			.start(EngineParts.request(Duration.ofSeconds(3), Duration.ofMillis(200), "k"));
		parts.timers.advanceMillis(200);
		assertThatExceptionOfType(CompletionException.class).isThrownBy(starved::join)
			.withMessageContaining("quorum unavailable: 1 of 3 nodes voting, quorum 2");
	}

}
