package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Wake-ups for waiters: a subscription on every node, confirmed by the first, and a
 * published release that wakes the current wait of its channel only.
 */
class ReleaseSignalsTests {

	private final EngineParts parts = new EngineParts(3);

	private final ReleaseSignals signals = this.parts.signals;

	@Test
	void subscriptionIsConfirmedByTheFirstNodeAndFailsOnlyWhenAllFail() {
		this.parts.channels.forEach((node) -> node.confirmLater = true);
		CompletableFuture<Void> subscribed = this.signals.subscribe("c");
		this.parts.channels.get(0).lastSubscribe.completeExceptionally(new IllegalStateException("down"));
		assertThat(subscribed).isNotDone();
		this.parts.channels.get(1).lastSubscribe.complete(null);
		assertThat(subscribed).isCompleted();
		CompletableFuture<Void> nowhere = this.signals.subscribe("d");
		this.parts.channels.forEach((node) -> node.lastSubscribe.completeExceptionally(new IllegalStateException()));
		assertThat(nowhere).isCompletedExceptionally();
	}

	@Test
	void messageWakesTheCurrentWaitOfItsChannelOnly() {
		CompletableFuture<Void> first = this.signals.expect("c");
		CompletableFuture<Void> other = this.signals.expect("d");
		this.signals.onMessage("c");
		assertThat(first).isCompleted();
		assertThat(other).isNotDone();
		CompletableFuture<Void> next = this.signals.expect("c");
		assertThat(next).isNotDone();
		assertThat(this.signals.waiting()).isEqualTo(2);
	}

	@Test
	void unsubscribeWaitsForEachNodesSubscribe() {
		this.parts.channels.forEach((node) -> node.confirmLater = true);
		this.signals.subscribe("c");
		this.signals.expect("c");
		this.signals.unsubscribe("c");
		assertThat(this.signals.waiting()).isZero();
		assertThat(this.signals.subscribed()).isZero();
		assertThat(this.parts.channels.get(0).calls).containsExactly("subscribe c");
		this.parts.channels.get(0).lastSubscribe.complete(null);
		assertThat(this.parts.channels.get(0).calls).containsExactly("subscribe c", "unsubscribe c");
		assertThat(this.parts.channels.get(1).calls).containsExactly("subscribe c");
	}

}
