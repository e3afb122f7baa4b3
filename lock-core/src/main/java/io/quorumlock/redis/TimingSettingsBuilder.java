package io.quorumlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The timing settings {@link QuorumLockEngine.Builder} collects, and their setters: the
 * node timeout, the clock drift, the retry delay, the restart guard and the leases it is
 * derived from, the fencing counters' time to live, and the clock. Users see the setters
 * on {@code QuorumLockEngine.Builder}.
 */
abstract sealed class TimingSettingsBuilder extends NodeSettingsBuilder permits EngineBuilder {

	Duration nodeTimeout = QuorumLockEngine.Builder.DEFAULT_NODE_TIMEOUT;

	double clockDriftFactor = QuorumLockEngine.Builder.DEFAULT_CLOCK_DRIFT_FACTOR;

	Duration retryMin = QuorumLockEngine.Builder.DEFAULT_RETRY_MIN;

	Duration retryMax = QuorumLockEngine.Builder.DEFAULT_RETRY_MAX;

	LongSupplier nanoClock = System::nanoTime;

	Duration rejoinDelay;

	final List<Duration> declaredLeases = new ArrayList<>();

	boolean guardFromDeclaredLeases;

	Duration fencingCounterTtl = QuorumLockEngine.Builder.DEFAULT_FENCING_COUNTER_TTL;

	TimingSettingsBuilder() {
	}

	/**
	 * Restart guard: a node that restarted less than this long ago does not count toward
	 * a quorum. Unset means the longest declared lease: the default lease, every
	 * {@code instance} lease and every declared lease ({@code declaredLeases}), fixed at
	 * {@code build()}. A positive value shorter than one of those leases is refused at
	 * build time; zero turns the guard off. Single mode (one node) has no guard. Every
	 * client of the same masters needs the same guard.
	 * @param rejoinDelay zero or more
	 * @return this builder
	 */
	public QuorumLockEngine.Builder rejoinDelay(Duration rejoinDelay) {
		this.rejoinDelay = requireNonNull(rejoinDelay, "rejoinDelay");
		return self();
	}

	/**
	 * Leases the application will ask for beyond the default and the instance leases (the
	 * auto-configuration passes every {@code @DistributedLock} method's effective lease),
	 * so that the restart guard covers them. The guard is fixed at {@code build()} from
	 * what is declared, so it is the same on every instance of a deployment whatever each
	 * has run; in quorum mode with the guard on, a request whose lease is longer than the
	 * guard in force is refused.
	 * @param leases positive durations; added to those given before
	 * @return this builder
	 */
	public QuorumLockEngine.Builder declaredLeases(Collection<Duration> leases) {
		for (Duration lease : requireNonNull(leases, "leases")) {
			if (requireNonNull(lease, "lease").isNegative() || lease.isZero()) {
				throw new IllegalArgumentException("declaredLeases: a lease must be positive, was " + lease);
			}
			this.declaredLeases.add(lease);
		}
		return self();
	}

	/**
	 * Derive the restart guard from the declared leases only: every {@code instance}
	 * lease and every declared lease ({@code declaredLeases}); the default lease counts
	 * only when an instance sets no lease of its own, or when nothing else is declared.
	 * Pass the default lease to {@code declaredLeases} when it is chosen explicitly or
	 * relied on. A request relying on an undeclared default lease longer than the guard
	 * is refused before anything is sent. Without this call the default lease always
	 * counts.
	 * @return this builder
	 */
	public QuorumLockEngine.Builder restartGuardFromDeclaredLeases() {
		this.guardFromDeclaredLeases = true;
		return self();
	}

	/**
	 * Time to live of each per-key fencing counter after its last use.
	 * @param fencingCounterTtl a positive duration
	 * @return this builder
	 */
	public QuorumLockEngine.Builder fencingCounterTtl(Duration fencingCounterTtl) {
		this.fencingCounterTtl = requireNonNull(fencingCounterTtl, "fencingCounterTtl");
		return self();
	}

	/**
	 * Bound on each node's answer within one round; must stay below a third of every
	 * lease.
	 * @param nodeTimeout a positive duration
	 * @return this builder
	 */
	public QuorumLockEngine.Builder nodeTimeout(Duration nodeTimeout) {
		this.nodeTimeout = requireNonNull(nodeTimeout, "nodeTimeout");
		return self();
	}

	/**
	 * Share of a lease assumed lost to clock drift between nodes, in [0, 0.5).
	 * @param clockDriftFactor the factor
	 * @return this builder
	 */
	public QuorumLockEngine.Builder clockDriftFactor(double clockDriftFactor) {
		this.clockDriftFactor = clockDriftFactor;
		return self();
	}

	/**
	 * Bounds of the jittered delay between attempts while waiting.
	 * @param min the shortest delay
	 * @param max the longest delay
	 * @return this builder
	 */
	public QuorumLockEngine.Builder retryDelay(Duration min, Duration max) {
		this.retryMin = requireNonNull(min, "min");
		this.retryMax = requireNonNull(max, "max");
		return self();
	}

	QuorumLockEngine.Builder nanoClock(LongSupplier nanoClock) {
		this.nanoClock = nanoClock;
		return self();
	}

}
