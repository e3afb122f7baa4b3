package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import io.quorumlock.redis.node.ManualTimers;

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
		CompletableFuture<String> first = this.signals.expect("c", null);
		CompletableFuture<String> other = this.signals.expect("d", null);
		this.signals.onMessage("c", "1");
		assertThat(first).isCompleted();
		assertThat(other).isNotDone();
		CompletableFuture<String> next = this.signals.expect("c", null);
		assertThat(next).isNotDone();
		assertThat(this.signals.waiting()).isEqualTo(2);
	}

	@Test
	void queuedWaiterWakesOnlyForItsOwnTokenOrAPlainRelease() {
		String waiter = "0123456789abcdef";
		String mine = waiter + "000000000000000000000000";
		String another = "fedcba9876543210" + "000000000000000000000000";
		CompletableFuture<String> wake = this.signals.expect("c", waiter);
		this.signals.onMessage("c", another);
		assertThat(wake).as("a hand-over to another waiter: the key is held again").isNotDone();
		this.signals.onMessage("c", mine);
		assertThat(wake).isCompletedWithValue(mine);
		CompletableFuture<String> next = this.signals.expect("c", waiter);
		this.signals.onMessage("c", "1");
		assertThat(next).as("a release to nobody").isCompletedWithValue("1");
		CompletableFuture<String> anyone = this.signals.expect("c", null);
		this.signals.onMessage("c", another);
		assertThat(anyone).as("a waiter that is not queued wakes on every message").isCompletedWithValue(another);
	}

	@Test
	void whereReleasesHandOverAWaitAlsoHearsItsEnginesOwnChannelOfTheKey() {
		FakeChannels node = new FakeChannels();
		ReleaseSignals own = new ReleaseSignals(java.util.List.of(node), ":e1");
		assertThat(own.ownChannel("c")).isEqualTo("c:e1");
		own.subscribe("c");
		assertThat(node.calls).containsExactly("subscribe c", "subscribe c:e1");
		String waiter = "0123456789abcdef";
		String mine = waiter + "000000000000000000000000";
		CompletableFuture<String> wake = own.expect("c", waiter);
		own.onMessage("c:e1", mine);
		assertThat(wake).isCompletedWithValue(mine);
		CompletableFuture<String> next = own.expect("c", waiter);
		own.onMessage("c", "1");
		assertThat(next).as("a release to nobody, on the key's channel").isCompletedWithValue("1");
		own.unsubscribe("c");
		assertThat(node.calls).containsExactly("subscribe c", "subscribe c:e1", "unsubscribe c", "unsubscribe c:e1");
		assertThat(this.signals.ownChannel("c")).as("no own channels elsewhere").isEqualTo("c");
	}

	@Test
	void aSubscribeAfterAnUnsubscribeIsSentOnlyOnceTheUnsubscribeIsAnswered() {
		this.signals.subscribe("c");
		this.parts.channels.forEach((node) -> node.confirmLater = true);
		this.signals.unsubscribe("c");
		// sent now from another thread, the SUBSCRIBE could reach the node first and be
		// undone by the UNSUBSCRIBE: subscribed here, not there
		this.signals.subscribe("c");
		FakeChannels first = this.parts.channels.get(0);
		assertThat(first.calls).containsExactly("subscribe c", "unsubscribe c");
		first.lastUnsubscribe.complete(null);
		assertThat(first.calls).as("every node's UNSUBSCRIBE is awaited")
			.containsExactly("subscribe c", "unsubscribe c");
		this.parts.channels.stream().skip(1).forEach((node) -> node.lastUnsubscribe.complete(null));
		assertThat(first.calls).containsExactly("subscribe c", "unsubscribe c", "subscribe c");
	}

	@Test
	void aLingeringSubscriptionIsTakenOverOrEndsWithItsTime() {
		ManualTimers timers = this.parts.timers;
		this.signals.subscribe("c");
		this.signals.linger("c", 100, timers);
		assertThat(this.signals.adopt("c")).isTrue();
		assertThat(this.signals.adopt("c")).as("in use").isFalse();
		this.signals.linger("c", 100, timers);
		timers.advance(100);
		assertThat(this.signals.subscribed()).isZero();
		assertThat(this.signals.adopt("c")).isFalse();
		assertThat(this.parts.channels.get(0).calls).containsExactly("subscribe c", "unsubscribe c");
	}

	@Test
	void aSubscriptionHandedFromTurnToTurnKeepsOneTimerToEndIt() {
		ManualTimers timers = this.parts.timers;
		this.signals.subscribe("c");
		for (int turn = 0; turn < 9; turn++) {
			// a contended key: each turn a wait of this process ends and the next takes
			// over
			this.signals.linger("c", 100, timers);
			assertThat(this.signals.adopt("c")).isTrue();
			timers.advance(10);
		}
		assertThat(timers.pending()).as("one timer, not one a turn").isOne();
		timers.advance(10);
		// the timer found it in use: disarmed, and armed again by the next linger
		assertThat(this.signals.isSubscribed("c")).isTrue();
		assertThat(timers.pending()).isZero();
		this.signals.linger("c", 100, timers);
		assertThat(timers.pending()).isOne();
		timers.advance(99);
		assertThat(this.signals.isSubscribed("c")).isTrue();
		timers.advance(1);
		assertThat(this.signals.subscribed()).isZero();
		assertThat(this.parts.channels.get(0).calls).containsExactly("subscribe c", "unsubscribe c");
	}

	@Test
	void aLingerWhileTheTimerFindsTheSubscriptionInUseIsNotLost() {
		ManualTimers timers = this.parts.timers;
		this.signals.subscribe("c");
		this.signals.linger("c", 100, timers);
		assertThat(this.signals.adopt("c")).isTrue();
		timers.advance(100); // fires while in use: disarmed
		this.signals.linger("c", 100, timers);
		timers.advance(100);
		assertThat(this.signals.subscribed()).as("the lingering ended on its time").isZero();
	}

	@Test
	void unsubscribeWaitsForEachNodesSubscribe() {
		this.parts.channels.forEach((node) -> node.confirmLater = true);
		this.signals.subscribe("c");
		this.signals.expect("c", null);
		this.signals.unsubscribe("c");
		assertThat(this.signals.waiting()).isZero();
		assertThat(this.signals.subscribed()).isZero();
		assertThat(this.parts.channels.get(0).calls).containsExactly("subscribe c");
		this.parts.channels.get(0).lastSubscribe.complete(null);
		assertThat(this.parts.channels.get(0).calls).containsExactly("subscribe c", "unsubscribe c");
		assertThat(this.parts.channels.get(1).calls).containsExactly("subscribe c");
	}

}
