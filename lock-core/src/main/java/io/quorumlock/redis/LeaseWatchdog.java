package io.quorumlock.redis;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.quorumlock.redis.node.RenewalBatch;
import io.quorumlock.redis.node.Timers;

/**
 * Keeps each live lease honest: one timer per lease on one of the engine's timing wheels,
 * whose tick runs on the engine's one scheduler thread (no thread per lease). A renewing
 * lease is extended on every node with a compare-and-pexpire every lease/3; a lease that
 * does not renew (or has reached {@code holdAtMost}) is checked when it runs out. A
 * renewal counts only if a quorum extended every key and the lease was still valid when
 * the round began; the new validity is measured from that start, net of drift. A round
 * that misses the quorum for lack of answers is tried again after a jittered retry delay
 * while another round fits in the validity left; a quorum that answered no (the lease is
 * gone there) or a validity spent marks the lease lost at once.
 * <p>
 * A timer is armed on a grid of the clock, at the step at or before its time: the longest
 * step of {@link #STEPS_MILLIS} that is at most 1/32 of the wait, none below 160 ms. A
 * renewal is then never later than lease/3, at most 1/32 of its wait earlier, and the
 * renewals due within one step fire together, so that they go to the nodes in one round;
 * the steps divide one another, so leases of different lengths meet on the coarser
 * points. A timer of {@link #GRID_MILLIS} steps (3.2 s ahead or more: the renewal of a
 * lease of 9.6 s or more, a far expiry check) goes on the coarse timer
 * ({@link Timers#coarse}), which ticks on those steps and, while it holds few timers,
 * sleeps to the earliest; the others on the fine timer. An expiry check found early arms
 * again for the rest of the validity, on a finer step, down to its time.
 * <p>
 * The timers that fire together are ticked by one scheduler task, and the renewals of
 * single-key exclusive leases among them go in one round per
 * {@link RenewalBatch#MAX_KEYS} leases ({@link RenewalRound}: one script call per node,
 * one deadline, each key still counted against its own quorum); the others, and every
 * retry, run a round per lease. The leases such a round renewed share their next timer
 * when it falls on the same point of the grid (it does when their leases are as long):
 * one timer a round instead of one a lease, so that holding many leases does not make a
 * timer per lease and renewal period that lives a whole period (each had to be copied by
 * the young collections, promoted, and its links marked for the collector). A released
 * lease has no timer of its own to cancel then: the shared timer skips it, and keeps it
 * reachable until it fires, at most a renewal period.
 */
final class LeaseWatchdog {

	/** The longest step of the grid, and the coarse timer's tick. */
	static final long GRID_MILLIS = 100;

	/** The grid's steps, longest first; each divides those before it. */
	static final long[] STEPS_MILLIS = { GRID_MILLIS, 20, 10, 5 };

	/** A timer goes on a step at most this share of its wait: at most 1/32 early. */
	private static final long STEPS_PER_WAIT = 32;

	private static final long GRID_NANOS = TimeUnit.MILLISECONDS.toNanos(GRID_MILLIS);

	private final Timers timers;

	private final Validity validity;

	private final Losses losses;

	private final Listeners listener;

	private final ExtensionRound rounds;

	/** Leases whose timer fired, for the scheduler to tick, in order. */
	private final Queue<RedisLease> due = new ConcurrentLinkedQueue<>();

	/**
	 * Leases in {@link #due} not yet taken by {@link #tickDue}. Each is queued before it
	 * is counted, and only the one {@link #tickDue} in progress polls, taking no more
	 * than it counted, so a poll never finds the queue empty. The lease that raises it
	 * from 0 posts the task, which runs until it brings it back to 0: one task runs at a
	 * time, and none is missing while a lease waits.
	 */
	private final AtomicInteger dueCount = new AtomicInteger();

	LeaseWatchdog(Voters voters, Timers timers, Validity validity, Losses losses, Listeners listener) {
		this.rounds = new ExtensionRound(voters, timers, validity);
		this.timers = timers;
		this.validity = validity;
		this.losses = losses;
		this.listener = listener;
	}

	/** Start watching a lease that was just granted. */
	void watch(RedisLease lease) {
		scheduleNext(lease);
	}

	private void scheduleNext(RedisLease lease) {
		if (lease.isReleased() || lease.lost() != null) {
			return;
		}
		long now = this.timers.nanoTime();
		long at = renews(lease, now) ? nextRenewal(lease) : lease.validUntil();
		// Armed on every grant and cancelled on almost every release, so on a timing
		// wheel (a lock-free enqueue and a CAS) rather than the scheduler's locked heap,
		// which the I/O thread completing the grant would contend for with every
		// releasing caller. The tick itself runs on the scheduler, off the wheel.
		long step = step(at - now);
		lease.watchdog(arm(gridPoint(at, step), step, (timeout) -> fired(lease)));
		if (lease.isReleased()) {
			lease.cancelWatchdog(); // released while we scheduled
		}
	}

	/**
	 * Arm the next renewals of {@code leases}, renewed in one round: those due on the
	 * same step of the grid as the first of them share one timer, the others get their
	 * own ({@link #scheduleNext}). The shared timer ticks a lease only if it was the
	 * lease's last arm ({@link RedisLease#watchArms()}): a lease armed again since (moved
	 * by {@link #rearm}) is ticked by its own timer, once.
	 */
	private void scheduleTogether(RedisLease[] leases, int count) {
		RedisLease[] shared = null;
		int[] arms = null;
		int together = 0;
		long when = 0;
		long firstStep = 0;
		long now = this.timers.nanoTime();
		for (int i = 0; i < count; i++) {
			RedisLease lease = leases[i];
			try {
				if (lease.isReleased() || lease.lost() != null) {
					continue;
				}
				if (!renews(lease, now)) {
					scheduleNext(lease); // an expiry check
					continue;
				}
				long at = nextRenewal(lease);
				long step = step(at - now);
				long point = gridPoint(at, step);
				if (step == 0 || (together > 0 && point != when)) {
					scheduleNext(lease); // off the grid, or on another point of it
					continue;
				}
				if (together == 0) {
					shared = new RedisLease[count - i];
					arms = new int[count - i];
					when = point;
					firstStep = step;
				}
				arms[together] = lease.watchdog(null);
				shared[together++] = lease;
			}
			catch (RuntimeException ex) {
				fail(lease, ex);
			}
		}
		if (together > 0) {
			armShared(shared, arms, together, when, firstStep);
		}
	}

	private void armShared(RedisLease[] leases, int[] arms, int count, long when, long step) {
		try {
			arm(when, step, (timeout) -> {
				for (int i = 0; i < count; i++) {
					if (leases[i].watchArms() == arms[i]) {
						fired(leases[i]);
					}
				}
			});
		}
		catch (RuntimeException ex) {
			for (int i = 0; i < count; i++) {
				fail(leases[i], ex);
			}
		}
	}

	/**
	 * A timer at {@code when}, a point of the grid of {@code step}: on the coarse timer
	 * for the longest step. At the point itself, not after a delay from now: such a delay
	 * ended a moment past the point, and the wheel fired a whole tick later, after
	 * lease/3.
	 */
	private Timeout arm(long when, long step, TimerTask task) {
		return (step == GRID_NANOS) ? this.timers.coarseAt(when, task) : this.timers.at(when, task);
	}

	/**
	 * The point of the grid of {@code step} at or before {@code at}; {@code at} for none.
	 */
	static long gridPoint(long at, long step) {
		return (step > 0) ? at - Math.floorMod(at, step) : at;
	}

	/** The grid step for a timer {@code wait} ahead, in nanoseconds; 0 for none. */
	static long step(long wait) {
		for (long millis : STEPS_MILLIS) {
			long step = TimeUnit.MILLISECONDS.toNanos(millis);
			if (wait >= STEPS_PER_WAIT * step) {
				return step;
			}
		}
		return 0;
	}

	/** A lease's timer fired: queue it for the scheduler, with those of the same tick. */
	private void fired(RedisLease lease) {
		this.due.add(lease);
		if (this.dueCount.getAndIncrement() == 0) {
			this.timers.runOnScheduler(this::tickDue);
		}
	}

	/**
	 * Tick every lease whose timer fired, on the scheduler: an expiry check, or a
	 * renewal; the renewals of single keys go together, {@link RenewalBatch#MAX_KEYS} to
	 * a round ({@link ExtensionRound#renewAll}), measured from when the first of them was
	 * found still valid, which the others were too (a lease checked later was valid
	 * earlier).
	 */
	private void tickDue() {
		RedisLease[] together = null;
		int count = 0;
		long start = 0;
		int taken = this.dueCount.get();
		while (taken > 0) {
			for (int i = 0; i < taken; i++) {
				RedisLease lease = this.due.poll(); // never null: see #dueCount
				try {
					long now = this.timers.nanoTime();
					if (settled(lease, now)) {
						continue;
					}
					if (!renews(lease, now)) {
						scheduleNext(lease);
					}
					else if (!this.rounds.renewsTogether(lease)) {
						renew(lease, now);
					}
					else {
						if (count == 0) {
							together = new RedisLease[Math.min(RenewalBatch.MAX_KEYS, taken - i)];
							start = now;
						}
						together[count++] = lease;
						if (count == together.length) {
							renewAll(together, count, start);
							count = 0;
						}
					}
				}
				catch (RuntimeException ex) {
					fail(lease, ex);
				}
			}
			if (count > 0) {
				renewAll(together, count, start);
				count = 0;
			}
			taken = this.dueCount.addAndGet(-taken);
		}
	}

	/** An unexpected failure: the lease is not left unwatched in silence. */
	private void fail(RedisLease lease, RuntimeException ex) {
		this.losses.lose(lease, "its renewal failed: " + ex);
	}

	/**
	 * Why a lease ran out, the same whether the watchdog or the release notices first.
	 */
	static String expired(ResolvedRequest request) {
		if (!request.renew()) {
			return "expired unrenewed after its lease of " + request.lease().toMillis() + " ms";
		}
		if (request.holdAtMost().isPresent()) {
			return "expired after renewal stopped at holdAtMost " + request.holdAtMost().get().toMillis() + " ms";
		}
		// renewal was due but did not run in time (a stalled JVM or scheduler)
		return "expired before its renewal could run (lease " + request.lease().toMillis() + " ms)";
	}

	/** A third of the lease after the start its validity is measured from. */
	private long nextRenewal(RedisLease lease) {
		long leaseNanos = lease.request().lease().toNanos();
		long start = lease.validUntil() - leaseNanos + this.validity.driftNanos(leaseNanos);
		return start + leaseNanos / 3;
	}

	private boolean renews(RedisLease lease, long now) {
		ResolvedRequest request = lease.request();
		return request.renew() && (request.holdAtMost().isEmpty() || now - lease.renewUntil() < 0);
	}

	/**
	 * Try the renewal again after a jittered retry delay, if another round still fits in
	 * the validity left; else the caller declares the lease lost. Each attempt is a whole
	 * round on every key (the extension is idempotent), and the validity it grants is
	 * measured from that attempt's start.
	 * @return whether a retry was armed (or nothing is left to renew)
	 */
	private boolean retry(RedisLease lease) {
		if (lease.isReleased() || lease.lost() != null) {
			return true;
		}
		long delay = this.rounds.retryDelayNanos(lease);
		if (delay < 0) {
			return false;
		}
		lease.watchdog(this.timers.after(delay, (timeout) -> this.timers.runOnScheduler(() -> retryTick(lease))));
		if (lease.isReleased()) {
			lease.cancelWatchdog(); // released while we scheduled
		}
		return true;
	}

	/**
	 * A lease whose renewal no answer decided and that has no time for another round:
	 * lost when its validity runs out, not before (only an answer or the lease's own
	 * clock ends a lease), unless it was released or extended meanwhile.
	 */
	private void expireAt(RedisLease lease, String failure) {
		lease.watchdog(this.timers.at(lease.validUntil(), (timeout) -> this.timers.runOnScheduler(() -> {
			if (lease.isReleased() || lease.lost() != null) {
				return;
			}
			if (Validity.remaining(lease.validUntil(), this.timers.nanoTime()) > 0) {
				scheduleNext(lease); // extended meanwhile
				return;
			}
			this.losses.lose(lease, "its validity ran out while its renewal had no deciding answer: " + failure);
		})));
		if (lease.isReleased()) {
			lease.cancelWatchdog(); // released while we scheduled
		}
	}

	private void retryTick(RedisLease lease) {
		long now = this.timers.nanoTime();
		if (!settled(lease, now)) {
			// after silence: a round of its own, as patient as the validity left allows
			this.rounds.renewAgain(lease, now).thenAccept((outcome) -> renewed(lease, outcome));
		}
	}

	/**
	 * Whether nothing is left to renew: the lease is released or lost, or it has just
	 * been found expired at {@code now} and is declared lost.
	 */
	private boolean settled(RedisLease lease, long now) {
		if (lease.isReleased() || lease.lost() != null) {
			return true;
		}
		if (Validity.remaining(lease.validUntil(), now) <= 0) {
			this.losses.lose(lease, expired(lease.request()), lease.request().renew());
			return true;
		}
		return false;
	}

	private void renew(RedisLease lease, long start) {
		this.rounds.renew(lease, start).thenAccept((outcome) -> renewed(lease, outcome));
	}

	private void renewAll(RedisLease[] leases, int count, long start) {
		CompletableFuture<ExtensionRound.Outcome[]> outcomes;
		try {
			outcomes = this.rounds.renewAll(leases, count, start);
		}
		catch (RuntimeException ex) {
			for (int i = 0; i < count; i++) {
				fail(leases[i], ex);
			}
			return;
		}
		outcomes.thenAccept((each) -> {
			// the listeners hear of the batch's renewals in one task
			RedisLease[] renewed = new RedisLease[count];
			int told = 0;
			for (int i = 0; i < count; i++) {
				try {
					if (extended(leases[i], each[i])) {
						renewed[told++] = leases[i];
					}
				}
				catch (RuntimeException ex) {
					fail(leases[i], ex);
				}
			}
			scheduleTogether(renewed, told);
			this.listener.onRenewed(renewed, told);
		});
	}

	private void renewed(RedisLease lease, ExtensionRound.Outcome outcome) {
		if (extended(lease, outcome)) {
			this.listener.onRenewed(lease.request().request(), lease);
			scheduleNext(lease);
		}
	}

	/**
	 * Take a round's outcome: the new validity, else a retry or the loss.
	 * @return whether the lease was extended
	 */
	private boolean extended(RedisLease lease, ExtensionRound.Outcome outcome) {
		if (!outcome.extended()) {
			if (!outcome.mayRetry()) {
				// a majority of the masters answered that the lease is gone
				this.losses.lose(lease, outcome.failure());
			}
			else if (!retry(lease)) {
				// no answer decided, and no other round fits: the lease still holds until
				// its validity runs out, and only then is it lost
				expireAt(lease, outcome.failure());
			}
			return false;
		}
		lease.extendTo(outcome.validUntil());
		return true;
	}

	/** The extension round renewal runs, for {@link Extender} to run the same. */
	ExtensionRound rounds() {
		return this.rounds;
	}

	/**
	 * Move a lease's check to its validity now, after {@link Extender} moved it (even
	 * earlier): run on the scheduler, where the ticks run.
	 */
	void rearm(RedisLease lease) {
		this.timers.runOnScheduler(() -> {
			lease.cancelWatchdog();
			scheduleNext(lease);
		});
	}

}
