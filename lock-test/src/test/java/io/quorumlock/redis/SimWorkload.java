package io.quorumlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import io.quorumlock.Lease;
import io.quorumlock.LockMode;
import io.quorumlock.LockRequest;

/**
 * The callers of a simulated run: a few per engine, each taking locks one after another
 * through the engine's asynchronous API only (a blocking call would stall the one event
 * loop), holding them for a while (using the resource now and then, with its fencing
 * token when it has one), then releasing them, or letting them run out. The kinds mix on
 * the same keys: exclusive and shared on {@code a} and {@code b}, both keys at once, two
 * permits of {@code p}, a minimum hold on {@code h}, leases extended on request, fencing
 * tokens.
 */
final class SimWorkload {

	private enum Kind {

		EXCLUSIVE, SHARED, BOTH_KEYS, PERMIT, HOLD_AT_LEAST, EXTEND

	}

	private static final int PERMITS = 2;

	private final SimRun run;

	private final SimLoop loop;

	private final Random random;

	private final SimHistory history;

	SimWorkload(SimRun run) {
		this.run = run;
		this.loop = run.loop;
		this.random = run.loop.random;
		this.history = run.history;
	}

	void start() {
		for (SimRun.Engine engine : this.run.engines) {
			int callers = 1 + this.random.nextInt(2);
			for (int i = 0; i < callers; i++) {
				String caller = engine.name + "." + i;
				this.loop.at(SimRun.millis(this.random.nextInt(300)), engine.actor, () -> next(engine, caller));
			}
		}
	}

	private void later(SimRun.Engine engine, long nanos, Runnable step) {
		this.loop.at(nanos, engine.actor, step);
	}

	private long upTo(long nanos) {
		return (long) (this.random.nextDouble() * nanos);
	}

	private void next(SimRun.Engine engine, String caller) {
		if (engine.closed || this.loop.now() > this.run.workUntil) {
			return;
		}
		Kind kind = Kind.values()[this.random.nextInt(Kind.values().length)];
		long leaseNanos = engine.lease.toNanos();
		Duration lease = Duration.ofNanos(this.random.nextBoolean() ? leaseNanos : leaseNanos / 2);
		long[] waits = { 0, leaseNanos / 2, 2 * leaseNanos };
		Duration wait = Duration.ofNanos(waits[this.random.nextInt(waits.length)]);
		boolean renew = this.random.nextBoolean();
		LockRequest request = switch (kind) {
			case EXCLUSIVE -> LockRequest.of(this.random.nextBoolean() ? "a" : "b");
			case SHARED -> LockRequest.of(this.random.nextBoolean() ? "a" : "b").mode(LockMode.SHARED);
			case BOTH_KEYS -> LockRequest.of(List.of("a", "b"));
			case PERMIT -> LockRequest.of("p").permits(PERMITS);
			case HOLD_AT_LEAST -> {
				renew = false;
				yield LockRequest.of("h").holdAtLeast(Duration.ofNanos(upTo(lease.toNanos())));
			}
			case EXTEND -> {
				renew = false;
				yield LockRequest.of(this.random.nextBoolean() ? "a" : "e");
			}
		};
		request = request.lease(lease).waitAtMost(wait).renew(renew);
		String what = caller + " " + kind.name().toLowerCase() + " " + request.keys() + " lease " + lease.toMillis()
				+ " ms wait " + wait.toMillis() + " ms" + (renew ? " renew" : "");
		this.loop.trace(what);
		CompletableFuture<Lease> acquired = engine.engine.acquireAsync(request);
		long permitPasses = (kind == Kind.PERMIT) ? 2L * PERMITS : 2;
		// each pass may retry undecided rounds for the retry budget, the last of them
		// with
		// a deadline up to the budget (doubled per undecided round), then undo it
		long slack = permitPasses * (2 * engine.roundNanos() + 2 * engine.retryBudgetNanos + engine.retryMaxNanos)
				+ 2 * engine.retryMaxNanos + SimRun.millis(100);
		this.history.acquiring(what, acquired, engine.timers, slack, engine.actor, wait.toNanos());
		boolean renewing = renew;
		acquired.whenComplete((lease1, error) -> {
			if (error != null) {
				this.history.refused++;
				this.loop.trace(caller + " not acquired: " + error.getClass().getSimpleName());
				later(engine, upTo(SimRun.millis(100)), () -> next(engine, caller));
				return;
			}
			hold(engine, caller, kind, (RedisLease) lease1, renewing);
		});
	}

	private void hold(SimRun.Engine engine, String caller, Kind kind, RedisLease lease, boolean renew) {
		SimHistory.Grant grant = this.history.granted(engine.name, engine.timers, lease, engine.roundNanos());
		boolean exclusive = kind == Kind.EXCLUSIVE || kind == Kind.BOTH_KEYS || kind == Kind.EXTEND;
		if (exclusive && this.random.nextBoolean()) {
			lease.fencingTokenAsync().whenComplete((token, error) -> {
				if (token != null) {
					this.history.token(grant, token);
				}
			});
		}
		long leaseNanos = lease.request().lease().toNanos();
		// at times longer than the lease: a lease that does not renew runs out first
		long holdFor = SimRun.millis(2) + upTo((long) (leaseNanos * (renew ? 2.5 : 1.3)));
		long until = this.loop.now() + holdFor;
		use(engine, grant, until, () -> {
			if (kind == Kind.EXTEND && !engine.closed && this.random.nextBoolean()) {
				Duration longer = Duration.ofNanos(engine.lease.toNanos());
				lease.extendAsync(longer).whenComplete((extended, error) -> {
					this.loop
						.trace(grant + " extended: " + ((error != null) ? error.getClass().getSimpleName() : extended));
					long more = this.loop.now() + upTo(longer.toNanos());
					use(engine, grant, more, () -> release(engine, caller, grant));
				});
				return;
			}
			if (!renew && this.random.nextInt(8) == 0) {
				// walked away: the lease runs out on its own
				this.loop.trace(grant + " abandoned");
				later(engine, upTo(SimRun.millis(50)), () -> next(engine, caller));
				return;
			}
			release(engine, caller, grant);
		});
	}

	/** Use the resource now and then until {@code until}, then {@code then}. */
	private void use(SimRun.Engine engine, SimHistory.Grant grant, long until, Runnable then) {
		if (engine.closed) {
			return;
		}
		if (this.loop.now() >= until) {
			then.run();
			return;
		}
		if (grant.token >= 0) {
			// a careful caller checks isValid(); a paused one may not have: the store's
			// check of the token is what keeps its late write out
			if (grant.isValid() || this.random.nextInt(4) == 0) {
				this.history.fencedWrite(grant);
			}
		}
		later(engine, Math.min(until - this.loop.now(), SimRun.millis(10) + upTo(SimRun.millis(80))),
				() -> use(engine, grant, until, then));
	}

	private void release(SimRun.Engine engine, String caller, SimHistory.Grant grant) {
		if (engine.closed) {
			return;
		}
		this.loop.trace(grant + " release");
		grant.lease.releaseAsync().whenComplete((ok, error) -> {
			this.loop.trace(grant + " released" + ((error != null) ? ": " + error.getClass().getSimpleName() : ""));
			later(engine, upTo(SimRun.millis(60)), () -> next(engine, caller));
		});
	}

}
