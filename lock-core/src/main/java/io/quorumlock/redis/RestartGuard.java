package io.quorumlock.redis;

import java.time.Duration;
import java.util.Map;

/**
 * The restart guard in force (the "delayed restarts" of the Redlock description), fixed
 * when the engine is built and never changed at call time: a node must have been up this
 * long to vote.
 * <p>
 * Every client of the same masters must hold back a restarted node at least as long as
 * any lease any of them grants, or a node that lost its keys in a restart could count
 * toward a second grant while the first holder's lease lives. A guard that grew with the
 * leases one JVM happened to see would differ between instances of one deployment, so it
 * is derived from what is declared: the longest of the default lease, every per-name
 * instance lease and every {@link QuorumLockEngine.Builder#declaredLeases declared lease}
 * (the auto-configuration declares every {@code @DistributedLock} method's lease), unless
 * {@code rejoin-delay} is set. An explicit {@code rejoin-delay} shorter than one of those
 * leases is refused at build time; zero turns the guard off. A request whose lease is
 * longer than the guard in force is refused before anything is sent. Single mode (one
 * node) has no guard.
 */
final class RestartGuard {

	/** Zero when off. */
	private final long nanos;

	private RestartGuard(long nanos) {
		this.nanos = nanos;
	}

	/**
	 * @param nodes how many nodes the engine has; one means single mode, without guard
	 * @param explicit {@code rejoin-delay} if set, else null
	 * @param leases every lease declared, keyed by where it comes from (for messages)
	 * @throws IllegalArgumentException if {@code explicit} is negative, or positive and
	 * shorter than one of the leases
	 */
	static RestartGuard of(int nodes, Duration explicit, Map<String, Duration> leases) {
		if (explicit != null && explicit.isNegative()) {
			throw new IllegalArgumentException(
					"rejoinDelay (quorumlock.rejoin-delay) must not be negative, was " + explicit);
		}
		if (nodes <= 1) {
			return new RestartGuard(0);
		}
		String longestWhere = null;
		Duration longest = Duration.ZERO;
		for (Map.Entry<String, Duration> lease : leases.entrySet()) {
			if (lease.getValue().compareTo(longest) > 0) {
				longest = lease.getValue();
				longestWhere = lease.getKey();
			}
		}
		if (explicit == null) {
			return new RestartGuard(longest.toNanos());
		}
		if (!explicit.isZero() && explicit.compareTo(longest) < 0) {
			throw new IllegalArgumentException("rejoinDelay " + explicit.toMillis()
					+ " ms (quorumlock.rejoin-delay) is shorter than the lease " + longest.toMillis() + " ms of "
					+ longestWhere + ": a node restarted empty would vote again while a lease taken before the "
					+ "restart may still be held; set it to at least " + longest.toMillis()
					+ " ms on every client of these masters, leave it unset, or set 0 to turn the guard off");
		}
		return new RestartGuard(explicit.toNanos());
	}

	/** The guard in force, in nanoseconds; zero when off. */
	long nanos() {
		return this.nanos;
	}

	/**
	 * Refuse a request whose lease the guard does not cover.
	 * @throws IllegalArgumentException naming the request, its lease and the guard
	 */
	void check(ResolvedRequest request) {
		if (this.nanos > 0 && request.lease().toNanos() > this.nanos) {
			throw new IllegalArgumentException(request.describe() + ": lease " + request.lease().toMillis()
					+ " ms is longer than the restart guard in force, " + Duration.ofNanos(this.nanos).toMillis()
					+ " ms (quorumlock.rejoin-delay): a node restarted empty could vote for a second grant while "
					+ "this lease is held. Declare the lease in configuration (quorumlock.lease, "
					+ "quorumlock.instances.<name>.lease, an annotation, QuorumLockEngine.Builder.declaredLeases) "
					+ "or set quorumlock.rejoin-delay to at least " + request.lease().toMillis()
					+ " ms, the same on every client of these masters");
		}
	}

}
