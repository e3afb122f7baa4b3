package io.quorumlock.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.quorumlock.LockException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.QuorumUnavailableException;

/**
 * One acquisition, as an asynchronous state machine: for each key in sorted order, take
 * the local gate, then run Redlock rounds until a quorum grants the key within its
 * validity or the wait runs out. Steps run one after another (never two at once for one
 * acquisition), on the caller's thread, a Lettuce I/O thread or the engine's scheduler;
 * none blocks.
 */
final class Acquisition {

	private final Acquirer parts;

	private final ResolvedRequest request;

	private final List<String> keys;

	private final String token;

	private final long startedAt;

	private final long deadline;

	private final long leaseNanos;

	private final long leaseMillis;

	/** What the caller holds; cancelling it stops the wait in progress. */
	final CompletableFuture<RedisLease> result = new Result();

	/** Gates owned: keys [0, gates). */
	private int gates;

	/** Keys granted on a quorum: [0, granted). */
	private int granted;

	private long validUntil = Long.MAX_VALUE;

	private boolean subscribed;

	private int rounds;

	/**
	 * The current local-queue ticket or wake-up, completed on cancellation to stop
	 * waiting.
	 */
	private volatile CompletableFuture<Void> waitingOn;

	Acquisition(Acquirer parts, ResolvedRequest request, String token, long startedAt) {
		this.parts = parts;
		this.request = request;
		this.keys = request.redisKeys();
		this.token = token;
		this.startedAt = startedAt;
		this.deadline = startedAt + request.waitAtMost().toNanos();
		this.leaseNanos = request.lease().toNanos();
		this.leaseMillis = request.lease().toMillis();
	}

	/**
	 * The result, which on cancellation also ends the local-queue ticket or wake-up being
	 * waited on, so the acquisition notices at once. An override rather than a completion
	 * callback, which every acquisition would pay for.
	 */
	private final class Result extends CompletableFuture<RedisLease> {

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			boolean cancelled = super.cancel(mayInterruptIfRunning);
			CompletableFuture<Void> w = Acquisition.this.waitingOn;
			if (cancelled && w != null) {
				w.completeExceptionally(new java.util.concurrent.CancellationException());
			}
			return cancelled;
		}

	}

	CompletableFuture<RedisLease> start() {
		enterGate();
		return this.result;
	}

	private boolean waits() {
		return !this.request.waitAtMost().isZero();
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
		this.waitingOn = ticket;
		Future<?> timer = this.parts.timers.schedule(
				() -> ticket.completeExceptionally(new java.util.concurrent.TimeoutException()),
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
		CompletableFuture<Void> wake = this.subscribed ? this.parts.signals.expect(LockKeys.channel(key)) : null;
		long attemptStart = this.parts.timers.nanoTime();
		this.rounds++;
		this.parts.voters.acquire(key, this.token, this.leaseMillis)
			.whenComplete((tally, error) -> onTally(key, attemptStart, tally, wake));
	}

	private void onTally(String key, long attemptStart, Round.Tally tally, CompletableFuture<Void> wake) {
		long now = this.parts.timers.nanoTime();
		long until = this.parts.validity.validUntil(attemptStart, this.leaseNanos);
		if (tally.reached() && Validity.remaining(until, now) > 0) {
			this.granted++;
			stopListening(key);
			if (this.granted < this.keys.size()) {
				this.validUntil = Math.min(this.validUntil, until);
				if (this.granted < this.gates) {
					attempt(); // re-taking keys after a failed proof: their gates are
								// ours
				}
				else {
					enterGate();
				}
			}
			else if (this.keys.size() > 1 && needsProof(now)) {
				prove(until);
			}
			else {
				this.validUntil = Math.min(this.validUntil, until);
				grant();
			}
			return;
		}
		// Not granted: undo this round on every node, including those that did not
		// answer,
		// since a late SET may still land; per-connection ordering puts the delete after
		// it.
		CompletableFuture<?> undo = (tally.yes() > 0 || !tally.failures().isEmpty())
				? this.parts.voters.release(key, this.token, this.leaseNanos) : CompletableFuture.completedFuture(null);
		boolean waitOver = now - this.deadline >= 0 || this.result.isDone();
		if (tally.answered() < tally.quorum()) {
			// Without a wait this fails at once; with one, nodes may come back (or answer
			// again) before it runs out, so only the last round's lack of a quorum fails.
			if (waitOver) {
				giveUpAfter(undo,
						new QuorumUnavailableException(this.request.describe() + ": quorum unavailable: acquired "
								+ tally.figures() + ", " + tally.answered() + " answered, " + elapsedMillis(now)
								+ " ms elapsed" + waited() + Voters.failures(tally)));
				return;
			}
			undo.whenComplete((ok, error) -> retryLater(this.parts.timers.nanoTime(), wake));
			return;
		}
		if (waitOver) {
			String why = tally.reached() ? "validity exhausted by acquisition time" : "held elsewhere";
			giveUpAfter(undo, notAcquired(why + ": acquired " + tally.figures() + Voters.failures(tally)));
			return;
		}
		ExclusiveIntent.mark(this.parts, key);
		if (!this.subscribed) {
			// First contention: subscribe to the release channel, then try again at once,
			// so
			// that a release between the failed round and the subscription is not missed.
			this.subscribed = true;
			String channel = LockKeys.channel(key);
			CompletableFuture<Void> confirmed = this.parts.signals.subscribe(channel);
			Future<?> timer = this.parts.timers.schedule(() -> confirmed.complete(null), this.parts.nodeTimeoutNanos);
			confirmed.whenComplete((ok, error) -> {
				timer.cancel(false);
				this.parts.timers.execute(this::attempt);
			});
			return;
		}
		retryLater(now, wake);
	}

	/**
	 * Whether the earlier keys of a multi-key lease must be proven held before the grant:
	 * their own rounds prove them held (on a quorum, uninterrupted) only until
	 * {@link #validUntil}, the earliest of their validities. Once less than two thirds of
	 * a lease is left of it (the point at which a lease would have been renewed) the
	 * grant runs a compare-and-extend round instead, so that it never stands on a key
	 * that may have expired, and a new lease always starts with most of its validity.
	 */
	private boolean needsProof(long now) {
		return Validity.remaining(this.validUntil, now) < this.leaseNanos - this.leaseNanos / 3;
	}

	/**
	 * The proof round of a multi-key grant: extend every earlier key to the full lease
	 * where this token still holds it, on every node in parallel. A key extended on a
	 * quorum was held by this token on each of those nodes since its SET (a token is set
	 * once and never comes back after an expiry or a delete), so no other client can have
	 * held it on a quorum meanwhile; its validity is then measured from the start of this
	 * round. A key that falls short may have been lost: every key is undone and the keys
	 * are taken again from the first, in order, while the wait lasts (the local gates
	 * stay ours, so no caller of this JVM gets in between).
	 * @param lastUntil the validity of the last key, from its own round
	 */
	private void prove(long lastUntil) {
		if (this.result.isDone()) {
			giveUp(null);
			return;
		}
		List<String> earlier = this.keys.subList(0, this.keys.size() - 1);
		String leaseArg = Long.toString(this.leaseMillis);
		long proofStart = this.parts.timers.nanoTime();
		CompletableFuture<?>[] rounds = earlier.stream()
			// a write a later grant relies on: with sync-replicas it waits for the
			// replicas too
			.map((key) -> this.parts.voters.extend(key, this.token, leaseArg))
			.toArray(CompletableFuture[]::new);
		this.rounds++;
		CompletableFuture.allOf(rounds).whenComplete((ok, error) -> {
			long now = this.parts.timers.nanoTime();
			long until = Math.min(lastUntil, this.parts.validity.validUntil(proofStart, this.leaseNanos));
			String lost = null;
			for (int i = 0; i < rounds.length && lost == null; i++) {
				Round.Tally tally = (Round.Tally) rounds[i].join();
				if (!tally.reached()) {
					lost = earlier.get(i) + " no longer held while waiting for later keys: extended " + tally.figures()
							+ Voters.failures(tally);
				}
			}
			if (lost == null && Validity.remaining(until, now) > 0) {
				this.validUntil = until;
				grant();
				return;
			}
			retakeAll((lost != null) ? lost : "validity exhausted by the proof round");
		});
	}

	/**
	 * A failed proof: undo every key on Redis (keeping the local gates), then take them
	 * again from the first while the wait lasts, else fail.
	 */
	private void retakeAll(String why) {
		int grantedKeys = this.granted;
		this.granted = 0;
		this.validUntil = Long.MAX_VALUE;
		CompletableFuture<?> undone = CompletableFuture.allOf(this.keys.subList(0, grantedKeys)
			.stream()
			.map((key) -> this.parts.voters.release(key, this.token, this.leaseNanos))
			.toArray(CompletableFuture[]::new));
		undone.whenComplete((ok, error) -> {
			if (this.parts.timers.nanoTime() - this.deadline >= 0 || this.result.isDone()) {
				giveUp(notAcquired(why));
			}
			else {
				this.parts.timers.execute(this::attempt);
			}
		});
	}

	/**
	 * Attempt again after a jittered back-off bounded by the deadline, or as soon as
	 * {@code wake} (the key's release signal, if subscribed) fires.
	 */
	private void retryLater(long now, CompletableFuture<Void> wake) {
		CompletableFuture<Void> next = (wake != null) ? wake : new CompletableFuture<>();
		long delay = Math.min(this.parts.timers.retryDelayNanos(), this.deadline - now);
		Future<?> timer = this.parts.timers.schedule(() -> next.complete(null), Math.max(0, delay));
		this.waitingOn = next;
		next.whenComplete((ok, error) -> {
			timer.cancel(false);
			this.parts.timers.execute(this::attempt);
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
		RedisLease lease = new RedisLease(this.parts.leases, this.request, this.token, this.parts.timers.nanoTime(),
				this.validUntil);
		for (String key : this.keys) {
			LocalGates.Gate gate = this.parts.gates.gate(key);
			if (gate != null) {
				gate.lease = lease;
			}
		}
		this.parts.gates.granted(lease);
		this.parts.watchdog.watch(lease);
		// Listeners hear of the grant before the caller does, so that what they record is
		// in place by the time the caller acts on it: they run on their own thread, and
		// the caller is handed the lease from there once they have returned (at once
		// without listeners).
		this.parts.listener.onAcquired(this.request.request(), lease, elapsed(), () -> {
			if (!this.result.complete(lease)) {
				// The caller gave up while the last round was in flight.
				this.parts.releaser.releaseAsync(lease);
			}
		});
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
		CompletableFuture<?> undone = (grantedKeys == 0) ? CompletableFuture.completedFuture(null)
				: CompletableFuture.allOf(this.keys.subList(0, grantedKeys)
					.stream()
					.map((key) -> this.parts.voters.release(key, this.token, this.leaseNanos))
					.toArray(CompletableFuture[]::new));
		// Fail only once the keys are deleted and the gates passed on, so that the caller
		// (and the next local waiter) finds nothing of this attempt left.
		undone.whenComplete((ok, error) -> {
			for (int i = 0; i < ownedGates; i++) {
				this.parts.gates.leave(this.keys.get(i));
			}
			if (failure != null && !this.result.isDone()) {
				this.parts.listener.onNotAcquired(this.request.request(), elapsed(), failure,
						() -> this.result.completeExceptionally(failure));
			}
		});
	}

	/**
	 * The wait ran out in the local queue: contention, unless the caller ahead was kept
	 * waiting by a missing quorum, which is then what this caller is told too.
	 */
	private LockException queuedOut() {
		int voting = this.parts.voters.votingNow();
		int quorum = this.parts.voters.quorum();
		if (voting >= quorum) {
			return notAcquired("queued behind another caller in this process");
		}
		return new QuorumUnavailableException(
				this.request.describe() + ": quorum unavailable: " + voting + " of " + this.parts.voters.size()
						+ " nodes voting, quorum " + quorum + ", while queued behind another caller in this process, "
						+ elapsedMillis(this.parts.timers.nanoTime()) + " ms elapsed" + waited());
	}

	private LockNotAcquiredException notAcquired(String why) {
		long now = this.parts.timers.nanoTime();
		return new LockNotAcquiredException(this.request.describe() + ": not acquired, " + why + ", "
				+ elapsedMillis(now) + " ms elapsed, waited at most " + this.request.waitAtMost().toMillis() + " ms, "
				+ this.rounds + ((this.rounds == 1) ? " round" : " rounds"));
	}

	/** For a waiting request: how long it could wait and how many rounds it ran. */
	private String waited() {
		return waits() ? ", waited at most " + this.request.waitAtMost().toMillis() + " ms, " + this.rounds
				+ ((this.rounds == 1) ? " round" : " rounds") : "";
	}

	private long elapsedMillis(long now) {
		return TimeUnit.NANOSECONDS.toMillis(now - this.startedAt);
	}

	private java.time.Duration elapsed() {
		return java.time.Duration.ofNanos(this.parts.timers.nanoTime() - this.startedAt);
	}

}
