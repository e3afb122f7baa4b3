package io.quorumlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import io.quorumlock.LeaseLostException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a lease ends, as one state: lost only while live, released once; a loss is never
 * reported after the release, and the release sees every loss declared before it.
 */
class LeaseEndTests {

	private final EngineParts parts = new EngineParts(3);

	private RedisLease lease() {
		return lease("k");
	}

	private RedisLease lease(String key) {
		return this.parts.start(EngineParts.request(Duration.ofSeconds(3), Duration.ZERO, key)).join();
	}

	@Test
	void aLossAfterTheReleaseIsNotDeclared() {
		RedisLease lease = lease();
		assertThat(lease.markReleased()).isTrue();
		assertThat(lease.markLost(new LeaseLostException("late"))).isFalse();
		assertThat(lease.lost()).isNull();
		assertThat(lease.isReleased()).isTrue();
	}

	@Test
	void theReleaseKeepsTheLossDeclaredBeforeIt() {
		RedisLease lease = lease();
		LeaseLostException loss = new LeaseLostException("renewal lost the quorum");
		assertThat(lease.markLost(loss)).isTrue();
		assertThat(lease.markLost(new LeaseLostException("second"))).isFalse();
		assertThat(lease.isValid()).isFalse();
		assertThat(lease.markReleased()).isTrue();
		assertThat(lease.markReleased()).isFalse();
		assertThat(lease.lost()).isSameAs(loss);
	}

	@Test
	void aReleaseRacingTheWatchdogsLossEitherSeesItOrPreventsIt() throws Exception {
		for (int i = 0; i < 2_000; i++) {
			RedisLease lease = lease("k" + i); // marked released here: its gate stays
												// taken
			LeaseLostException loss = new LeaseLostException("lost " + i);
			CompletableFuture<Boolean> lost = CompletableFuture.supplyAsync(() -> lease.markLost(loss));
			boolean released = lease.markReleased();
			assertThat(released).isTrue();
			if (lost.get()) {
				// declared: it happened before the release, which sees it
				assertThat(lease.lost()).isSameAs(loss);
			}
			else {
				assertThat(lease.lost()).isNull();
			}
		}
	}

}
