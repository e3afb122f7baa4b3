package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import io.quorumlock.redis.node.Timers;

/**
 * One extension round over every key of a lease, shared by renewal
 * ({@link LeaseWatchdog}) and {@link io.quorumlock.Lease#extend(Duration)}
 * ({@link Extender}): a token-checked compare-and-pexpire of each key to the lease
 * ({@link Voters#extend}, voting, with sync-replicas' {@code WAIT}), all keys in
 * parallel. It counts only if a quorum extended every key; the validity it grants is
 * measured from the round's start, net of drift ({@link Validity#validUntil}), and must
 * not be spent by the time the answers are in. Whether the lease was still valid when the
 * round began is the caller's check.
 */
final class ExtensionRound {

	/**
	 * What a round gave: the new validity (nanoTime), or why it failed and whether a
	 * quorum could still say yes to another round (no quorum answered no).
	 */
	record Outcome(long validUntil, String failure, boolean mayRetry) {

		boolean extended() {
			return this.failure == null;
		}

	}

	private final Voters voters;

	private final Timers timers;

	private final Validity validity;

	ExtensionRound(Voters voters, Timers timers, Validity validity) {
		this.voters = voters;
		this.timers = timers;
		this.validity = validity;
	}

	/**
	 * A jittered delay after which another round still fits in the lease's validity, or
	 * -1 if none does: a round that missed the quorum for lack of answers is tried again
	 * after it.
	 */
	long retryDelayNanos(RedisLease lease) {
		long delay = this.timers.retryDelayNanos();
		long now = this.timers.nanoTime();
		return (Validity.remaining(lease.validUntil(), now + delay + this.voters.writeRoundNanos()) > 0) ? delay : -1;
	}

	/** The validity a round of {@code leaseLength} started at {@code start} grants. */
	long validUntil(long start, Duration leaseLength) {
		return this.validity.validUntil(start, leaseLength.toNanos());
	}

	/**
	 * Extend every key of the lease to {@code lease}, in a round that started at
	 * {@code start}; {@code what} names the round in a failure ("extension", ...).
	 */
	CompletableFuture<Outcome> run(RedisLease lease, Duration leaseLength, long start, String what) {
		return run(lease, leaseLength, start, what, false);
	}

	/**
	 * The watchdog's renewal: the same round to the request's lease, with the renewals
	 * due on a node sent together ({@link Voters#renew}).
	 */
	CompletableFuture<Outcome> renew(RedisLease lease, long start) {
		return run(lease, lease.request().lease(), start, "renewal", true);
	}

	/**
	 * The watchdog's renewal tried again after a round that silence left undecided: a
	 * round of its own (not batched) whose deadline is as long as the lease's validity
	 * left allows, up to a third of the lease: a loaded machine or a stalled master is
	 * given time to answer instead of the same short deadline again, and the answer (or
	 * the deadline) still comes before the validity runs out.
	 */
	CompletableFuture<Outcome> renewAgain(RedisLease lease, long start) {
		long leaseNanos = lease.request().lease().toNanos();
		long left = Validity.remaining(lease.validUntil(), start) - this.voters.writeRoundNanos();
		long timeout = Math.max(this.voters.writeRoundNanos(), Math.min(leaseNanos / 3, left));
		return run(lease, lease.request().lease(), start, "renewal", false, timeout);
	}

	private CompletableFuture<Outcome> run(RedisLease lease, Duration leaseLength, long start, String what,
			boolean renewal) {
		return run(lease, leaseLength, start, what, renewal, 0);
	}

	/** A round; {@code timeoutNanos} of each node's answer, or 0 for the node timeout. */
	private CompletableFuture<Outcome> run(RedisLease lease, Duration leaseLength, long start, String what,
			boolean renewal, long timeoutNanos) {
		List<String> keys = lease.request().redisKeys();
		String leaseMillis = Long.toString(leaseLength.toMillis());
		CompletableFuture<?>[] rounds = new CompletableFuture<?>[keys.size()];
		Voters voters = this.voters.of(lease.request());
		for (int i = 0; i < rounds.length; i++) {
			rounds[i] = renewal ? voters.renew(keys.get(i), lease.token(i), leaseMillis)
					: (timeoutNanos > 0) ? voters.extend(keys.get(i), lease.token(i), leaseMillis, timeoutNanos)
							: voters.extend(keys.get(i), lease.token(i), leaseMillis);
		}
		// the rounds never complete exceptionally: each completes with its tally
		return CompletableFuture.allOf(rounds).thenApply((ok) -> {
			long now = this.timers.nanoTime();
			for (CompletableFuture<?> round : rounds) {
				Round.Tally tally = (Round.Tally) round.join();
				if (!tally.reached()) {
					return missed(tally, what);
				}
			}
			return extended(start, leaseLength, now, what);
		});
	}

	/** A key's round short of its quorum. */
	private static Outcome missed(Round.Tally tally, String what) {
		// a quorum that answered no means the lease is gone; silence may pass
		return new Outcome(0, what + " extended " + tally.figures() + Voters.failures(tally),
				tally.nodes() - tally.no() >= tally.quorum());
	}

	/** Every key reached its quorum: the validity from {@code start}, if not spent. */
	private Outcome extended(long start, Duration leaseLength, long now, String what) {
		long until = validUntil(start, leaseLength);
		if (Validity.remaining(until, now) <= 0) {
			return new Outcome(0, what + " took longer than the lease", false);
		}
		return new Outcome(until, null, false);
	}

	/**
	 * Whether a lease's renewal may go with others' in one round ({@link #renewAll}): it
	 * has one key, exclusive, on voters that renew many keys together.
	 */
	boolean renewsTogether(RedisLease lease) {
		ResolvedRequest request = lease.request();
		return request.redisKeys().size() == 1 && !request.isShared() && this.voters.renewsMany();
	}

	/**
	 * The watchdog's renewal of {@code count} leases that {@link #renewsTogether}, in one
	 * round ({@link Voters#renewMany}) started at {@code start}: each lease's outcome is
	 * what {@link #renew} would give it.
	 */
	CompletableFuture<Outcome[]> renewAll(RedisLease[] leases, int count, long start) {
		String[] keys = new String[count];
		String[] args = new String[2 * count];
		Duration length = null;
		String millis = null;
		for (int i = 0; i < count; i++) {
			RedisLease lease = leases[i];
			keys[i] = lease.request().redisKeys().get(0);
			args[2 * i] = lease.token(0);
			if (!lease.request().lease().equals(length)) {
				// most leases of a batch have the same length: one string for them
				length = lease.request().lease();
				millis = Long.toString(length.toMillis());
			}
			args[2 * i + 1] = millis;
		}
		return this.voters.renewMany(keys, args).thenApply((tallies) -> {
			long now = this.timers.nanoTime();
			Outcome[] outcomes = new Outcome[count];
			for (int i = 0; i < count; i++) {
				outcomes[i] = tallies[i].reached() ? extended(start, leases[i].request().lease(), now, "renewal")
						: missed(tallies[i], "renewal");
			}
			return outcomes;
		});
	}

}
