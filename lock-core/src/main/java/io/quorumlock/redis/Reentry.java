package io.quorumlock.redis;

import java.util.Collection;
import java.util.List;

import io.quorumlock.CurrentLease;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;

/**
 * Re-entry scope. A lease is in scope on this thread while it is unreleased and either
 * bound to {@link CurrentLease} here (by the aspect for the call of an annotated method,
 * or by {@code execute} for its action: scopes that end with the call, on this thread) or
 * held through a {@link LockView} by this thread (a Lock is owned by the thread that
 * locked it and unlocked only by it, until which it cannot be handed off). A lease
 * returned by {@code acquire}, {@code tryAcquire} or {@code acquireAsync} belongs to no
 * thread: it may be handed on and released anywhere, so the thread that acquired it
 * cannot tell when its work on it ends.
 */
final class Reentry {

	private final LocalGates gates;

	private final Losses losses;

	Reentry(LocalGates gates, Losses losses) {
		this.gates = gates;
		this.losses = losses;
	}

	/**
	 * The lease held on every key of the request within whose scope this thread runs, or
	 * null if there is none.
	 * @throws IllegalStateException if the scope holds only some of the keys
	 */
	RedisLease heldInScope(ResolvedRequest resolved) {
		Thread me = Thread.currentThread();
		RedisLease held = null;
		int count = 0;
		List<String> keys = resolved.redisKeys();
		for (int i = 0; i < keys.size(); i++) { // no iterator: on every acquire
			LocalGates.Gate gate = this.gates.gate(keys.get(i));
			RedisLease lease = (gate != null) ? gate.lease : null;
			if (lease != null && !lease.isReleased() && (lease.owner() == me || isBound(lease))) {
				if (held != null && held != lease) {
					throw partialReentry(resolved);
				}
				held = lease;
				count++;
			}
		}
		if (count > 0 && count < resolved.redisKeys().size()) {
			throw partialReentry(resolved);
		}
		if (held == null) {
			held = lostInScope(resolved, me);
		}
		return (held != null) ? held : SharedReentry.inScope(resolved);
	}

	/**
	 * A lease lost but not yet released, in whose scope this thread runs, that held any
	 * of the request's keys: it left its local gates at its loss, but its scope is still
	 * on, and a re-entry into it must fail as before rather than take the keys afresh.
	 */
	private RedisLease lostInScope(ResolvedRequest resolved, Thread me) {
		Collection<RedisLease> lost = this.gates.lostUnreleased();
		if (lost.isEmpty()) {
			return null;
		}
		for (RedisLease lease : lost) {
			if (!lease.isReleased() && (lease.owner() == me || isBound(lease))
					&& lease.request().redisKeys().stream().anyMatch(resolved.redisKeys()::contains)) {
				return lease;
			}
		}
		return null;
	}

	/** A hold on a lease in scope, unless it no longer protects anything. */
	Lease reenter(RedisLease held) {
		if (!held.isValid()) {
			// never hand out a hold on a lease that no longer protects anything
			LeaseLostException lost = (held.lost() != null) ? held.lost()
					: this.losses.lose(held, "expired before this thread re-entered it", held.request().renew());
			throw new LeaseLostException(lost.getMessage() + "; release it before locking again");
		}
		return new ReentrantHold(held);
	}

	private static boolean isBound(RedisLease lease) {
		return CurrentLease
			.anyBound((bound) -> bound == lease || (bound instanceof ReentrantHold hold && hold.lease() == lease));
	}

	private static IllegalStateException partialReentry(ResolvedRequest resolved) {
		return new IllegalStateException(resolved.describe() + ": this thread already holds some of these keys "
				+ "under another lease; lock the whole set in the outermost call so keys are taken in sorted order");
	}

}
