package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import io.quorumlock.redis.node.Timers;
import io.quorumlock.redis.node.Channels;

/**
 * Wake-ups for waiters: a release publishes on the key's channel, and the one local
 * waiter polling that key (the owner of its {@link LocalGates gate}) retries at once.
 * Where a release hands the key to a queued waiter ({@link Voters#handsOver()}), it
 * publishes that waiter's token instead, on the waiter's engine's own channel of the key
 * ({@link #ownChannel}), which only that engine subscribes: the waiter it names hears it,
 * and a queued waiter it does not name sleeps on (the key is held again). Subscriptions
 * exist only while someone waits, so idle keys cost nothing, except that a queued
 * waiter's subscription stays for a short while after its grant ({@link #linger}), for
 * the next waiter of this process on the same key to take over ({@link #adopt}): a key
 * contended from several processes is then subscribed once, not once per turn.
 */
final class ReleaseSignals {

	private final List<? extends Channels> nodes;

	/**
	 * Channel to the wake-up of its current wait; an entry exists only while someone
	 * waits.
	 */
	private final ConcurrentHashMap<String, Wait> waiting = new ConcurrentHashMap<>();

	/**
	 * Channel to its subscription; an entry exists only while subscribed (in use, or
	 * lingering).
	 */
	private final ConcurrentHashMap<String, Subscription> subscriptions = new ConcurrentHashMap<>();

	/**
	 * A channel's SUBSCRIBE on each node, in node order, and whether a wait uses it. Its
	 * state goes from {@link #USED} to {@link #LINGERING} and back, and ends
	 * {@link #GONE}; each move is a compare-and-set, so that a wait taking it over and
	 * its lingering ending never both win.
	 */
	private static final class Subscription {

		final List<CompletableFuture<Void>> each;

		final AtomicInteger state = new AtomicInteger(USED);

		/** Until when it lingers (nanoTime), once {@link #LINGERING}. */
		volatile long lingerUntil;

		/**
		 * Whether a timer to end its lingering is armed. One at a time: a subscription
		 * handed from waiter to waiter of a contended key lingers once a turn, and a
		 * timer a turn would wake the scheduler a turn. The armed timer, when it fires,
		 * arms again for what is left, or disarms if a wait uses the subscription (and
		 * the next linger arms one).
		 */
		final AtomicBoolean timed = new AtomicBoolean();

		Subscription(List<CompletableFuture<Void>> each) {
			this.each = each;
		}

	}

	/**
	 * Channel to its UNSUBSCRIBEs in progress, done once every node answered (or failed
	 * to); put before the subscription they end leaves {@link #subscriptions}. A
	 * SUBSCRIBE of the channel waits for them: sent from another thread, it could
	 * otherwise reach the node first and be undone by them, leaving a wait subscribed
	 * here and not on the node, which a lingering subscription would carry over from turn
	 * to turn.
	 */
	private final ConcurrentHashMap<String, CompletableFuture<Void>> unsubscribing = new ConcurrentHashMap<>();

	private static final int USED = 0;

	private static final int LINGERING = 1;

	private static final int GONE = 2;

	/**
	 * Where releases hand over ({@link Voters#handsOver()}): the suffix of this engine's
	 * own channel of each key, on which a release publishes a hand-over to a waiter of
	 * this engine (and no other engine hears it); null elsewhere.
	 */
	private final String ownSuffix;

	ReleaseSignals(List<? extends Channels> nodes) {
		this(nodes, null);
	}

	/**
	 * @param ownSuffix the suffix of this engine's own channels where releases hand over
	 * ({@link #ownChannel}), or null
	 */
	ReleaseSignals(List<? extends Channels> nodes, String ownSuffix) {
		this.nodes = nodes;
		this.ownSuffix = ownSuffix;
	}

	/**
	 * This engine's own channel of a key's release channel, on which a release hands the
	 * key to a queued waiter of this engine; subscribed with the key's channel.
	 */
	String ownChannel(String channel) {
		return (this.ownSuffix != null) ? channel + this.ownSuffix : channel;
	}

	/**
	 * The channels one wait subscribes on each node: the key's, and this engine's own.
	 */
	private String[] channels(String channel) {
		return (this.ownSuffix != null) ? new String[] { channel, channel + this.ownSuffix } : new String[] { channel };
	}

	/**
	 * Subscribe on every node (to the key's channel, and to this engine's own where
	 * releases hand over); completes when at least one subscription is confirmed.
	 */
	CompletableFuture<Void> subscribe(String channel) {
		CompletableFuture<Void> any = new CompletableFuture<>();
		AtomicInteger failed = new AtomicInteger();
		String[] channels = channels(channel);
		int total = this.nodes.size() * channels.length;
		List<CompletableFuture<Void>> each = new ArrayList<>(total);
		CompletableFuture<Void> before = this.unsubscribing.get(channel);
		for (Channels node : this.nodes) {
			for (String name : channels) {
				CompletableFuture<Void> subscribed = (before == null || before.isDone()) ? node.subscribe(name)
						: before.thenCompose((ok) -> node.subscribe(name));
				each.add(subscribed);
				subscribed.whenComplete((ok, error) -> {
					if (error == null) {
						any.complete(null);
					}
					else {
						if (failed.incrementAndGet() == total) {
							any.completeExceptionally(error);
						}
					}
				});
			}
		}
		this.subscriptions.put(channel, new Subscription(each));
		return any;
	}

	/**
	 * Take over {@code channel}'s lingering subscription for a new wait; false if there
	 * is none (then {@link #subscribe}).
	 */
	boolean adopt(String channel) {
		Subscription subscription = this.subscriptions.get(channel);
		return subscription != null && subscription.state.compareAndSet(LINGERING, USED);
	}

	/**
	 * End the current wait on {@code channel} but keep its subscription for
	 * {@code nanos}, for another wait to {@link #adopt}; unsubscribed then unless
	 * adopted. A wait that adopts it and ends lingers it again, from then.
	 */
	void linger(String channel, long nanos, Timers timers) {
		this.waiting.remove(channel);
		Subscription subscription = this.subscriptions.get(channel);
		if (subscription == null) {
			return;
		}
		subscription.lingerUntil = timers.nanoTime() + nanos;
		if (subscription.state.compareAndSet(USED, LINGERING) && subscription.timed.compareAndSet(false, true)) {
			endLingering(channel, subscription, nanos, timers);
		}
	}

	/** Unsubscribe once the lingering is over, unless adopted meanwhile. */
	private void endLingering(String channel, Subscription subscription, long nanos, Timers timers) {
		try {
			timers.schedule(() -> {
				long left = subscription.lingerUntil - timers.nanoTime();
				int state = subscription.state.get();
				if (state == LINGERING && left > 0) {
					endLingering(channel, subscription, left, timers); // lingered again
					return;
				}
				if (state == USED && this.subscriptions.get(channel) == subscription) {
					// a wait uses it: no timer until it lingers again, which arms one;
					// a linger that came between the read above and the disarming
					// found this timer armed, so it is armed again here for it
					subscription.timed.set(false);
					if (subscription.state.get() == LINGERING && subscription.timed.compareAndSet(false, true)) {
						endLingering(channel, subscription, Math.max(0, subscription.lingerUntil - timers.nanoTime()),
								timers);
					}
					return;
				}
				CompletableFuture<Void> done = new CompletableFuture<>();
				CompletableFuture<Void> previous = this.unsubscribing.put(channel, done);
				// the mark is in place before the state changes: a wait that finds the
				// subscription gone then finds the mark
				if (subscription.state.compareAndSet(LINGERING, GONE)
						&& this.subscriptions.remove(channel, subscription)) {
					unsubscribeEach(channel, subscription, done, previous);
				}
				else { // taken over, or replaced: nothing to unsubscribe
					settle(channel, done, previous);
				}
			}, nanos);
		}
		catch (RuntimeException ex) { // the engine closed: its connections close too
			subscription.state.set(GONE);
			this.subscriptions.remove(channel, subscription);
		}
	}

	/**
	 * Start a new wait on {@code channel}: the returned future completes with the next
	 * message's text. Call it before each attempt, so that a release during the attempt
	 * is not missed.
	 * @param waiter a queued waiter's name (its tokens' first {@link #WAITER} digits): a
	 * hand-over to another token is then no wake-up; null for any message
	 */
	CompletableFuture<String> expect(String channel, String waiter) {
		Wait wake = new Wait(waiter);
		this.waiting.put(channel, wake);
		return wake;
	}

	/** Digits of a queued waiter's name: the first of each of its tokens. */
	static final int WAITER = 16;

	/** A wait for one message, with the name of the queued waiter it is for, if any. */
	private static final class Wait extends CompletableFuture<String> {

		private final String waiter;

		Wait(String waiter) {
			this.waiter = waiter;
		}

		/** Whether {@code message} wakes this waiter. */
		boolean wakes(String message) {
			return this.waiter == null || message.length() != Tokens.BYTES * 2 || message.startsWith(this.waiter);
		}

	}

	/**
	 * Unsubscribe on every node, each once its SUBSCRIBE is done: a grant can come while
	 * a node's pub/sub connection is still opening (the first wait of an engine, or after
	 * a reconnect), and an UNSUBSCRIBE sent, or dropped, before the SUBSCRIBE would leave
	 * the channel subscribed for good. At worst a waiter of the same key that subscribed
	 * in between loses its wake-up and retries on its back-off.
	 */
	void unsubscribe(String channel) {
		this.waiting.remove(channel);
		CompletableFuture<Void> done = new CompletableFuture<>();
		CompletableFuture<Void> previous = this.unsubscribing.put(channel, done);
		Subscription subscription = this.subscriptions.remove(channel);
		if (subscription != null) {
			subscription.state.set(GONE);
		}
		unsubscribeEach(channel, subscription, done, previous);
	}

	/**
	 * UNSUBSCRIBE on every node (on each once its SUBSCRIBE is done), then
	 * {@link #settle}.
	 */
	private void unsubscribeEach(String channel, Subscription subscription, CompletableFuture<Void> done,
			CompletableFuture<Void> previous) {
		List<CompletableFuture<Void>> each = (subscription != null) ? subscription.each : null;
		String[] channels = channels(channel);
		CompletableFuture<?>[] answered = new CompletableFuture<?>[this.nodes.size() * channels.length];
		for (int i = 0; i < this.nodes.size(); i++) {
			Channels node = this.nodes.get(i);
			for (int c = 0; c < channels.length; c++) {
				String name = channels[c];
				int at = i * channels.length + c;
				answered[at] = (each == null) ? node.unsubscribe(name)
						: each.get(at).handle((ok, error) -> null).thenCompose((ok) -> node.unsubscribe(name));
			}
		}
		settle(channel, done, previous, answered);
	}

	/**
	 * Complete {@code done} and drop its mark once {@code previous} (if any) and every
	 * one of {@code answered} are done.
	 */
	private void settle(String channel, CompletableFuture<Void> done, CompletableFuture<Void> previous,
			CompletableFuture<?>... answered) {
		CompletableFuture<?> all = CompletableFuture.allOf(answered);
		((previous != null) ? all.thenCombine(previous, (a, b) -> null) : all).whenComplete((ok, error) -> {
			this.unsubscribing.remove(channel, done);
			done.complete(null);
		});
	}

	/** Channels with a wait registered now; zero when nobody waits. */
	int waiting() {
		return this.waiting.size();
	}

	/** Whether a wait subscribed to {@code channel} now. */
	boolean isSubscribed(String channel) {
		return this.subscriptions.containsKey(channel);
	}

	/** Channels subscribed now; zero when nobody waits. */
	int subscribed() {
		return this.subscriptions.size();
	}

	/** Called by the nodes' pub/sub listeners, on their I/O threads. */
	void onMessage(String channel, String message) {
		String suffix = this.ownSuffix;
		Wait wake = this.waiting.get((suffix != null && channel.endsWith(suffix))
				? channel.substring(0, channel.length() - suffix.length()) : channel);
		if (wake != null && wake.wakes(message)) {
			wake.complete(message);
		}
	}

}
