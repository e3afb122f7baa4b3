package io.quorumlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

import io.netty.util.Timeout;
import io.quorumlock.LockException;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.redis.node.Replies;

/**
 * One acquisition, as an asynchronous state machine: for each key in sorted order, take
 * the local gate, then run Redlock rounds until a quorum grants the key within its
 * validity or the wait runs out. Steps run one after another (never two at once for one
 * acquisition), on the caller's thread, a Lettuce I/O thread or the engine's scheduler;
 * none blocks.
 */
final class Acquisition extends AcquisitionState implements BiConsumer<Round.Tally, Throwable> {

	/** Gates owned: keys [0, gates). */
	private int gates;

	/** Keys granted on a quorum: [0, granted). */
	private int granted;

	private long validUntil = Long.MAX_VALUE;

	private boolean subscribed;

	/**
	 * The attempt in flight (one at a time): its key, fresh token, start and release
	 * signal, for its reply ({@link #accept}); set before its round is sent, read when it
	 * is decided.
	 */
	private String attemptKey;

	private String attemptToken;

	private long attemptStart;

	private CompletableFuture<String> wake;

	/**
	 * Waiting in the key's queue on its one master ({@link Voters#handsOver()}): from the
	 * first lost round of a waiting, exclusive, one-key acquisition, its rounds are
	 * {@link Voters#queue} rounds, named by {@link #waiter}, and a release may hand it
	 * the key by publishing the token of its last round ({@link #claim}).
	 */
	private boolean queued;

	/** The name of this acquisition's queued tokens: their first digits, random. */
	private String waiter;

	/**
	 * The master's connection and pub/sub link when the last queued round was sent
	 * ({@link Voters#handOverLink()}).
	 */
	private long attemptLink;

	/**
	 * Rounds in a row that silence left undecided ({@link Round.Tally#undecided}): each
	 * gives the next a longer deadline ({@link #roundTimeoutNanos}).
	 */
	private int undecidedRounds;

	/** Whether the last round's token was undone: then it is never claimed. */
	private boolean attemptUndone;

	/**
	 * Whether a queued wait ended on its timer rather than on a message: then its
	 * subscription is not left to linger after the grant (a subscription that lost its
	 * messages somehow must not be carried over to the next turn).
	 */
	private boolean heardNothing;

	/** Made at the first lost round (none for an acquisition that never waits). */
	private ExclusiveIntent intent;

	Acquisition(Acquirer parts, ResolvedRequest request, long startedAt) {
		super(parts, request, startedAt);
	}

	CompletableFuture<RedisLease> start() {
		enterGate();
		return this.result;
	}

	private void enterGate() {
		if (this.result.isDone()) {
			giveUp(null);
			return;
		}
		String key = this.keys.get(this.gates);
		LocalGates localGates = this.parts.gates;
		if (!waits()) {
			if (localGates.tryEnter(key)) {
				this.gates++;
				attempt();
			}
			else {
				giveUp(notAcquired("held by another caller in this process"));
			}
			return;
		}
		CompletableFuture<Void> ticket = localGates.enter(key);
		if (ticket.isDone()) {
			this.gates++;
			attempt();
			return;
		}
		this.result.waitOn(ticket);
		Future<?> timer = this.parts.timers.schedule(() -> ticket.completeExceptionally(new TimeoutException()),
				Math.max(0, this.deadline - this.parts.timers.nanoTime()));
		ticket.whenComplete((ok, error) -> {
			timer.cancel(false);
			if (error != null) {
				giveUp(queuedOut());
			}
			else {
				this.gates++;
				this.parts.timers.execute(this::attempt);
			}
		});
	}

	private void attempt() {
		if (this.result.isDone()) {
			giveUp(null);
			return;
		}
		String key = this.keys.get(this.granted);
		if (this.rounds == 0 && queues() && this.parts.signals.adopt(LockKeys.channel(key))) {
			// the key's subscription lingers from a queued waiter of this process before:
			// contended lately, so straight into the queue, with no plain round first
			this.subscribed = true;
			enterQueue();
		}
		String token = this.parts.tokens.next(); // fresh for every round
		if (this.queued) {
			// fresh but for the waiter's name, which the queue knows it by
			token = this.waiter + token.substring(ReleaseSignals.WAITER);
		}
		this.attemptKey = key;
		this.attemptToken = token;
		this.attemptUndone = false;
		this.wake = this.subscribed ? this.parts.signals.expect(LockKeys.channel(key), this.waiter) : null;
		this.attemptStart = this.parts.timers.nanoTime();
		this.rounds++;
		if (this.queued) {
			// read before the round is sent: a hand-over heard on the same link later
			// came from the server process that ran this round
			this.attemptLink = this.parts.voters.handOverLink();
			this.parts.voters
				.queue(key, token, this.leaseMillis, queueEntryMillis(),
						this.parts.signals.ownChannel(LockKeys.channel(key)), roundTimeoutNanos())
				.whenComplete(this);
			return;
		}
		this.parts.voters.acquire(key, token, this.leaseMillis, roundTimeoutNanos()).whenComplete(this);
	}

	/**
	 * Each node's deadline in this acquisition's next round: the node timeout, doubled
	 * for each round in a row that silence left undecided, up to a third of the lease (so
	 * a grant keeps two thirds of its validity) and the retry budget. A client or masters
	 * stalled for longer than a node timeout (a throttled pod, a GC pause, a loaded
	 * machine) are given time instead of the same short deadline again; a round still
	 * decides as soon as a quorum has answered, so masters that answer pay nothing. A
	 * retried round ends by the end of the retry budget (or one node timeout after it is
	 * sent, if later).
	 */
	private long roundTimeoutNanos() {
		long base = this.parts.nodeTimeoutNanos;
		if (this.undecidedRounds == 0) {
			return base;
		}
		long longest = Math.max(base, Math.min(this.leaseNanos / 3, this.parts.retryBudgetNanos));
		// and no later than the budget's end (one node timeout at least): a call is then
		// decided, and any grant made, within waitAtMost + the retry budget + one node
		// timeout of its start, the bound a holdAtLeast must cover for once per tick
		long budgetLeft = this.deadline + this.parts.retryBudgetNanos - this.parts.timers.nanoTime();
		return Math.max(base, Math.min(Math.min(longest, base << Math.min(this.undecidedRounds, 10)), budgetLeft));
	}

	/**
	 * How long a queue entry lasts unless refreshed: as the exclusive intent, two of the
	 * longest retry delays and two rounds; a waiter refreshes it with each round, at
	 * least once a longest retry delay.
	 */
	private long queueEntryMillis() {
		long nanos = 2 * this.parts.timers.retryMaxNanos() + 2 * this.parts.voters.writeRoundNanos();
		return Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos));
	}

	/**
	 * Whether this acquisition waits in the key's queue once it has lost a round: a
	 * waiting, exclusive acquisition of one lock key (no permit slot) where releases hand
	 * over.
	 */
	private boolean queues() {
		String key = this.keys.get(0);
		return this.keys.size() == 1 && waits() && this.parts.voters.handsOver()
				&& LockKeys.permitBase(key).equals(key);
	}

	/**
	 * From now on this acquisition's rounds are queued rounds, named by a random waiter
	 * name of its own.
	 */
	private void enterQueue() {
		this.queued = true;
		this.waiter = this.parts.tokens.next().substring(0, ReleaseSignals.WAITER);
	}

	/** The attempt's round is decided (no callback object per attempt). */
	@Override
	public void accept(Round.Tally tally, Throwable error) {
		onTally(this.attemptKey, this.attemptToken, this.attemptStart, tally, this.wake);
	}

	private void onTally(String key, String token, long attemptStart, Round.Tally tally,
			CompletableFuture<String> wake) {
		long now = this.parts.timers.nanoTime();
		long until = this.parts.validity.validUntil(attemptStart, this.leaseNanos);
		if (tally.reached() && Validity.remaining(until, now) > 0) {
			won(key, token, until, now);
			return;
		}
		lost(key, token, tally, now, wake);
	}

	/** A round won {@code key} for {@code token}, valid until {@code until}. */
	private void won(String key, String token, long until, long now) {
		this.tokens[this.granted] = token;
		this.granted++;
		if (this.queued && !this.heardNothing) {
			// the grant took this waiter out of the queue; its subscription stays a while
			// for the next waiter of this process on the key
			this.subscribed = false;
			this.parts.signals.linger(LockKeys.channel(key), 2 * this.parts.timers.retryMaxNanos(), this.parts.timers);
		}
		this.queued = false;
		stopListening(key);
		if (this.granted < this.keys.size()) {
			this.validUntil = Math.min(this.validUntil, until);
			if (this.granted < this.gates) {
				// re-taking keys after a failed proof: their gates are ours
				attempt();
			}
			else {
				enterGate();
			}
		}
		else if (this.keys.size() > 1 && MultiKeyProof.needed(this.validUntil, now, this.leaseNanos)) {
			prove();
		}
		else {
			this.validUntil = Math.min(this.validUntil, until);
			grant();
		}
	}

	/** A round on {@code key} with {@code token} did not win it. */
	private void lost(String key, String token, Round.Tally tally, long now, CompletableFuture<String> wake) {
		// Not granted: undo this round on every node, including those that did not
		// answer, since a late SET may still land. The undo names this round's own token,
		// so whenever it arrives it deletes nothing of a later round's.
		boolean undoing = tally.yes() > 0 || !tally.failures().isEmpty();
		this.attemptUndone = undoing;
		CompletableFuture<?> undo = undoing ? this.parts.voters.release(key, token, this.leaseNanos)
				: CompletableFuture.completedFuture(null);
		boolean waitOver = now - this.deadline >= 0 || this.result.isDone();
		if (tally.split() && !this.result.isDone() && now - this.startedAt < this.parts.splitWindowNanos) {
			// A split vote: several contenders took some nodes each at once, none a
			// quorum, and every one of them undoes its round. Each retries after a short
			// jitter, even without a wait, so that "try once" never means "everyone gives
			// up": the first to retry takes the key, and the others find it held and
			// stop.
			undo.whenComplete((ok, error) -> retrySplit());
			return;
		}
		this.undecidedRounds = tally.undecided() ? this.undecidedRounds + 1 : 0;
		if (tally.undecided() || tally.reached()) {
			// Only an answer decides: masters that did not answer in time (or answered a
			// transient condition, or are reconnecting) might have said yes, and a grant
			// that came too late to be valid says nothing about other holders. This is
			// slowness, not contention: retried within the retry budget beyond the wait,
			// even without one, each time a whole round with a fresh token.
			retryUndecided(tally, now, undo, wake);
			return;
		}
		if (tally.answered() < tally.quorum()) {
			// Too few masters may vote (held back by the restart guard, or down): with a
			// wait, wait only while a quorum may vote in time (held back until before the
			// deadline, or reconnecting for a moment), never for masters down for longer.
			long possibleIn = this.parts.voters.quorumPossibleInNanos(reconnectingNanos());
			if (waitOver || possibleIn == Long.MAX_VALUE || now + possibleIn - this.deadline > 0) {
				giveUpAfter(undo,
						NotAcquired.quorumUnavailable(this.request, tally, now - this.startedAt, this.rounds));
				return;
			}
			undo.whenComplete((ok, error) -> retryLater(this.parts.timers.nanoTime(), wake, this.deadline));
			return;
		}
		if (waitOver) {
			String why = tally.reached() ? "validity exhausted by acquisition time" : "held elsewhere";
			giveUpAfter(undo, notAcquired(why + ": acquired " + tally.figures() + Voters.failures(tally)));
			return;
		}
		if (!this.queued) { // a queued round marks the intent itself
			if (this.intent == null) {
				this.intent = new ExclusiveIntent();
			}
			this.intent.lost(this.parts, key, now);
		}
		if (!this.subscribed) {
			// First contention: subscribe to the release channel, then try again at once,
			// so that a release between the failed round and the subscription is not
			// missed.
			this.subscribed = true;
			if (queues()) {
				enterQueue();
			}
			String channel = LockKeys.channel(key);
			CompletableFuture<Void> confirmed = this.parts.signals.subscribe(channel);
			Future<?> timer = this.parts.timers.schedule(() -> confirmed.complete(null), this.parts.nodeTimeoutNanos);
			attemptWhen(confirmed, () -> timer.cancel(false), false);
			return;
		}
		retryLater(now, wake, this.deadline);
	}

	/**
	 * A round that the answers did not decide ({@link Round.Tally#undecided}, or granted
	 * too late to be valid): once its undo is done, another round after a jittered delay,
	 * while the wait and the retry budget after it last and a quorum may answer in that
	 * time (masters down for longer than that are not waited for); else the call fails as
	 * unavailable, naming the masters that did not answer.
	 */
	private void retryUndecided(Round.Tally tally, long now, CompletableFuture<?> undo,
			CompletableFuture<String> wake) {
		long budgetEnd = this.deadline + this.parts.retryBudgetNanos;
		long possibleIn = this.parts.voters.quorumPossibleInNanos(reconnectingNanos());
		if (this.result.isDone() || now - budgetEnd >= 0 || possibleIn == Long.MAX_VALUE
				|| now + possibleIn - budgetEnd > 0) {
			if (tally.reached()) {
				giveUpAfter(undo, NotAcquired.quorumUnavailable(this.request, "validity exhausted by acquisition time",
						tally, now - this.startedAt, this.rounds));
			}
			else {
				giveUpAfter(undo,
						NotAcquired.quorumUnavailable(this.request, tally, now - this.startedAt, this.rounds));
			}
			return;
		}
		undo.whenComplete((ok, error) -> retryLater(this.parts.timers.nanoTime(), wake, budgetEnd));
	}

	/**
	 * How long a master's connection may have been down and still count as a reconnect in
	 * progress rather than a dead master: the retry budget. A master that dropped a
	 * moment ago (a restart, a network blip) is retried for; one down for longer than a
	 * reconnect takes is not waited for, whatever the wait.
	 */
	private long reconnectingNanos() {
		return this.parts.retryBudgetNanos;
	}

	/**
	 * The proof round of a multi-key grant ({@link MultiKeyProof}): every key, the last
	 * one included, is extended to the whole lease where its token holds it, so that the
	 * grant's validity is measured from the proof's start and a multi-key lease starts
	 * with two thirds of its lease at least (less the drift allowance). A key that falls
	 * short may have been lost: every key is undone and the keys are taken again from the
	 * first, in order, while the wait lasts (the local gates stay ours, so no caller of
	 * this JVM gets in between).
	 */
	private void prove() {
		if (this.result.isDone()) {
			giveUp(null);
			return;
		}
		this.rounds++;
		MultiKeyProof.run(this.parts, this.keys, this.tokens, this.leaseMillis, this.leaseNanos, Long.MAX_VALUE)
			.whenComplete((proof, error) -> {
				if (proof != null && proof.failure() == null) {
					this.validUntil = proof.validUntil();
					grant();
				}
				else {
					retakeAll((proof != null) ? proof.failure() : Replies.reason(error),
							proof == null || proof.undecided());
				}
			});
	}

	/**
	 * A failed proof: undo every key on Redis (keeping the local gates), then take them
	 * again from the first while the wait lasts (and the retry budget after it, when the
	 * proof failed for want of answers rather than on a quorum's answer), else fail.
	 */
	private void retakeAll(String why, boolean undecided) {
		int grantedKeys = this.granted;
		this.granted = 0;
		this.validUntil = Long.MAX_VALUE;
		long until = undecided ? this.deadline + this.parts.retryBudgetNanos : this.deadline;
		this.parts.undo(this.keys.subList(0, grantedKeys), this.tokens, this.leaseNanos).whenComplete((ok, error) -> {
			if (this.parts.timers.nanoTime() - until >= 0 || this.result.isDone()) {
				giveUp(undecided ? new QuorumUnavailableException(this.request.describe() + ": quorum unavailable: "
						+ why + ", " + TimeUnit.NANOSECONDS.toMillis(this.parts.timers.nanoTime() - this.startedAt)
						+ " ms elapsed") : notAcquired(why));
			}
			else {
				this.parts.timers.execute(this::attempt);
			}
		});
	}

	/**
	 * Attempt again after a jittered back-off bounded by {@code until}, or as soon as
	 * {@code wake} (the key's release signal, if subscribed) fires. The back-off is a
	 * timer of the engine's timing wheel, not of the scheduler: a wake-up cancels it
	 * almost always, and arming and cancelling it there wakes no thread (a scheduler
	 * timer woke the scheduler thread twice a turn under contention).
	 */
	private void retryLater(long now, CompletableFuture<String> wake, long until) {
		CompletableFuture<String> next = (wake != null) ? wake : new CompletableFuture<>();
		long delay = Math.min(this.parts.timers.retryDelayNanos(), until - now);
		this.result.waitOn(next);
		Runnable cancel;
		try {
			Timeout timer = this.parts.timers.after(Math.max(0, delay), (timeout) -> next.complete(null));
			cancel = timer::cancel;
		}
		catch (IllegalStateException ex) { // the engine closed: the attempt ends the wait
			next.complete(null);
			cancel = () -> {
			};
		}
		attemptWhen(next, cancel, true);
	}

	/**
	 * Attempt again after a split vote, once this round's undo is done: after a jitter of
	 * up to the shortest retry delay (a millisecond at least), so that the contenders
	 * spread out and the first finds the others' undos landed.
	 */
	private void retrySplit() {
		long jitter = Math.max(this.parts.timers.retryMinNanos(), TimeUnit.MILLISECONDS.toNanos(1));
		long delay = TimeUnit.MICROSECONDS.toNanos(this.parts.timers.nextInt((int) (jitter / 1000) + 1));
		CompletableFuture<String> next = new CompletableFuture<>();
		Future<?> timer = this.parts.timers.schedule(() -> next.complete(null), delay);
		this.result.waitOn(next);
		attemptWhen(next, () -> timer.cancel(false), false);
	}

	/**
	 * Attempt again once {@code signal} completes, cancelling its timer: through the
	 * scheduler, never on the thread that completes the signal (the pub/sub I/O thread
	 * must not run the next round's work). Safety does not depend on it: the next round
	 * has a token of its own, so even if it overtook the undo of the round before on a
	 * connection, that undo could not delete its grant. A hand-over of the key to this
	 * queued waiter is taken where it is heard ({@link #claim}), as a round's reply is.
	 * @param wake whether {@code signal} is a release signal, which the timer completes
	 * with null when no message came
	 */
	private void attemptWhen(CompletableFuture<?> signal, Runnable cancelTimer, boolean wake) {
		signal.whenComplete((message, error) -> {
			cancelTimer.run();
			if (wake && this.queued && message == null && error == null) {
				this.heardNothing = true;
			}
			if (this.queued && message instanceof String token && token.length() == Tokens.BYTES * 2) {
				// a grant is taken on the thread that heard it (it sends nothing, as a
				// round's reply is on its I/O thread); anything else on the scheduler
				claim(token);
			}
			else {
				this.parts.timers.execute(this::attempt);
			}
		});
	}

	/**
	 * A release handed the key to {@code token}, a token of this waiter. It is this
	 * acquisition's only if it is the token of its last round, that round was not undone,
	 * and the master is the one that round was sent to, as the engine saw it then: the
	 * same connection epoch and the same pub/sub connection (so no restart between the
	 * round and the message), voting now. Then it is granted as that round would have
	 * been, valid from that round's start (the key was set after the round's entry was
	 * written, which was after it was sent). Any other token of this waiter is released
	 * again, so no key is left held by a token nobody will use, and the wait goes on.
	 */
	private void claim(String token) {
		if (this.result.isDone()) {
			// leaves the queue, and releases any key of this waiter
			this.parts.timers.execute(() -> giveUp(null));
			return;
		}
		long now = this.parts.timers.nanoTime();
		long until = this.parts.validity.validUntil(this.attemptStart, this.leaseNanos);
		Voters voters = this.parts.voters;
		if (token.equals(this.attemptToken) && !this.attemptUndone && this.attemptLink != -1
				&& voters.handOverLink() == this.attemptLink && voters.votingNow() >= voters.quorum()
				&& Validity.remaining(until, now) > 0) {
			won(this.attemptKey, token, until, now);
			return;
		}
		this.parts.timers.execute(() -> refuse(token, now));
	}

	/** {@link #claim}: a handed token this acquisition does not take, released again. */
	private void refuse(String token, long now) {
		this.parts.voters.release(this.attemptKey, token, this.leaseNanos).whenComplete((ok, error) -> {
			if (now - this.deadline >= 0) {
				giveUp(notAcquired("a hand-over came too late to use"));
			}
			else {
				this.parts.timers.execute(this::attempt);
			}
		});
	}

	/** Fail once this round's undo is done, so a failed call leaves no key behind it. */
	private void giveUpAfter(CompletableFuture<?> undo, LockException failure) {
		undo.whenComplete((ok, error) -> giveUp(failure));
	}

	private void stopListening(String key) {
		if (this.subscribed) {
			this.subscribed = false;
			this.parts.signals.unsubscribe(LockKeys.channel(key));
		}
	}

	private void grant() {
		this.parts.handOver(this.request, this.tokens, this.validUntil, this.startedAt, this.result);
	}

	/**
	 * Undo what this acquisition holds (granted keys on Redis, then local gates) and fail
	 * it with {@code failure}; a null failure means the caller cancelled.
	 */
	private void giveUp(LockException failure) {
		if (this.subscribed) {
			stopListening(this.keys.get(this.granted));
		}
		int ownedGates = this.gates;
		int grantedKeys = this.granted;
		this.gates = 0;
		this.granted = 0;
		CompletableFuture<?> undone = this.parts.undo(this.keys.subList(0, grantedKeys), this.tokens, this.leaseNanos);
		if (this.queued) {
			// out of the queue, and any key handed to this waiter released to the next
			this.queued = false;
			undone = CompletableFuture.allOf(undone,
					this.parts.voters.release(this.keys.get(0), this.waiter, this.leaseNanos));
		}
		// Fail only once the keys are deleted and the gates passed on, so that the caller
		// (and the next local waiter) finds nothing of this attempt left.
		undone.whenComplete((ok, error) -> {
			for (int i = 0; i < ownedGates; i++) {
				this.parts.gates.leave(this.keys.get(i));
			}
			if (failure != null && !this.result.isDone()) {
				this.parts.listener.onNotAcquired(this.request.request(),
						Duration.ofNanos(this.parts.timers.nanoTime() - this.startedAt), failure,
						() -> this.result.completeExceptionally(failure));
			}
		});
	}

}
