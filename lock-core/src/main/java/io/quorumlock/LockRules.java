package io.quorumlock;

import java.time.Duration;
import java.util.Optional;

/**
 * The rules that tie a lock's timing options to each other and to the node timeout,
 * written once with one message each, for every layer that checks them: the engine's
 * builder and its per-request resolution, the configuration properties and the annotation
 * checks. Each {@code …Problem} method returns what is wrong, with the figures, or empty
 * when the rule holds; a layer puts its own subject in front (a setting, a property, a
 * method) and throws its own exception type. The shape of a request that a query of who
 * holds a key accepts is checked here too ({@link #checkQuery}), once for every registry.
 */
public final class LockRules {

	/** The node timeout with several masters, unless one is chosen. */
	public static final Duration QUORUM_NODE_TIMEOUT = Duration.ofMillis(50);

	/** The node timeout with one node, unless one is chosen or a client timeout given. */
	public static final Duration ONE_NODE_TIMEOUT = Duration.ofSeconds(1);

	private static final Duration ONE_MILLI = Duration.ofMillis(1);

	private LockRules() {
	}

	/**
	 * The node timeout to use when none is chosen. With several masters,
	 * {@link #QUORUM_NODE_TIMEOUT}: a round decides at the quorum's answers, so the
	 * timeout only bounds what a dead or paused master costs. With one node there is no
	 * other master to move on to, and a short deadline only turns a slow answer into
	 * another round, so a client command timeout: {@code clientTimeout} when given, else
	 * {@link #ONE_NODE_TIMEOUT}, but at most a quarter of the shortest lease given and
	 * never below what {@link #QUORUM_NODE_TIMEOUT} would allow for that lease, so that
	 * no lease given is refused for a timeout nobody chose.
	 * @param oneNode whether there is a single node
	 * @param clientTimeout a client command timeout to follow with one node, or null
	 * @param leases the leases in use (defaults, instances, declared), any order
	 * @return the default node timeout, positive
	 */
	public static Duration defaultNodeTimeout(boolean oneNode, Duration clientTimeout, Iterable<Duration> leases) {
		if (!oneNode) {
			return QUORUM_NODE_TIMEOUT;
		}
		Duration base = (clientTimeout != null && !clientTimeout.isNegative() && !clientTimeout.isZero())
				? clientTimeout : ONE_NODE_TIMEOUT;
		Duration shortest = null;
		for (Duration lease : leases) {
			if (lease != null && !lease.isNegative() && !lease.isZero()
					&& (shortest == null || lease.compareTo(shortest) < 0)) {
				shortest = lease;
			}
		}
		if (shortest == null) {
			return base;
		}
		// a quarter of the shortest lease leaves a renewal round room in each third
		Duration cap = shortest.dividedBy(4);
		// never below the several-masters default where that default fits the lease
		Duration floor = min(QUORUM_NODE_TIMEOUT, shortest.dividedBy(3).minus(ONE_MILLI));
		return max(max(min(base, cap), floor), ONE_MILLI);
	}

	private static Duration min(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
	}

	private static Duration max(Duration a, Duration b) {
		return (a.compareTo(b) >= 0) ? a : b;
	}

	/**
	 * A lease must be longer than three node timeouts: renewal runs every lease/3, and
	 * each of its rounds may take a node timeout.
	 * @param lease the lease
	 * @param nodeTimeout the node timeout
	 * @return what is wrong, or empty
	 */
	public static Optional<String> leaseProblem(Duration lease, Duration nodeTimeout) {
		if (lease.toNanos() > 3 * nodeTimeout.toNanos()) {
			return Optional.empty();
		}
		return Optional.of("lease " + lease.toMillis() + " ms is too short for node timeout " + nodeTimeout.toMillis()
				+ " ms: the node timeout must be below a third of every lease");
	}

	/** The shortest fencing counter TTL. */
	public static final Duration MIN_FENCING_COUNTER_TTL = Duration.ofMinutes(1);

	/**
	 * A fencing counter that expires is seeded again from a master's clock, so that it
	 * never goes back: its TTL must exceed any difference between the masters' clocks,
	 * and is at least {@link #MIN_FENCING_COUNTER_TTL}.
	 * @param ttl the counter TTL
	 * @return what is wrong, or empty
	 */
	public static Optional<String> fencingCounterTtlProblem(Duration ttl) {
		if (ttl.compareTo(MIN_FENCING_COUNTER_TTL) >= 0) {
			return Optional.empty();
		}
		return Optional.of("must be at least " + MIN_FENCING_COUNTER_TTL.toSeconds() + " s, was " + ttl.toMillis()
				+ " ms: a counter that expired is seeded again from the master's clock, and its TTL must exceed "
				+ "any difference between the masters' clocks, or a later holder could get a smaller token");
	}

	/**
	 * {@code holdAtMost} bounds renewal, so it must not be shorter than one lease.
	 * @param holdAtMost the bound on renewal
	 * @param lease the lease
	 * @return what is wrong, or empty
	 */
	public static Optional<String> holdAtMostProblem(Duration holdAtMost, Duration lease) {
		if (holdAtMost.compareTo(lease) >= 0) {
			return Optional.empty();
		}
		return Optional
			.of("holdAtMost " + holdAtMost.toMillis() + " ms is shorter than lease " + lease.toMillis() + " ms");
	}

	/**
	 * {@code holdAtLeast} must not be negative, nor longer than a lease that is not
	 * renewed (the key would expire first).
	 * @param holdAtLeast the minimum hold
	 * @param lease the lease
	 * @param renew whether the lease is renewed
	 * @return what is wrong, or empty
	 */
	public static Optional<String> holdAtLeastProblem(Duration holdAtLeast, Duration lease, boolean renew) {
		if (holdAtLeast.isNegative()) {
			return Optional.of("holdAtLeast must not be negative, was " + holdAtLeast);
		}
		if (renew || holdAtLeast.compareTo(lease) <= 0) {
			return Optional.empty();
		}
		return Optional.of("holdAtLeast " + holdAtLeast.toMillis() + " ms is longer than the lease " + lease.toMillis()
				+ " ms without renewal: the key would expire first; lengthen the lease or turn renewal on");
	}

	/**
	 * Check every rule on options whose lease and renewal are resolved.
	 * @param where what the options belong to, put in front of the message (for example
	 * {@code defaults} or a lock's description)
	 * @param options resolved options: a lease is set
	 * @param nodeTimeout the node timeout
	 * @throws IllegalArgumentException naming {@code where} and the figures of the first
	 * rule broken
	 */
	public static void check(String where, LockOptions options, Duration nodeTimeout) {
		Optional<String> problem = problem(options, nodeTimeout);
		if (problem.isPresent()) {
			throw new IllegalArgumentException(where + ": " + problem.get());
		}
	}

	/**
	 * The first rule that resolved options break, in the order lease, holdAtMost,
	 * holdAtLeast.
	 * @param options resolved options: a lease is set (renewal defaults to on)
	 * @param nodeTimeout the node timeout
	 * @return what is wrong, or empty
	 */
	public static Optional<String> problem(LockOptions options, Duration nodeTimeout) {
		// on every request: plain ifs, no lambdas, no Optional of an option
		Duration lease = options.leaseOrNull();
		if (lease == null) {
			return Optional.of("the lease is not resolved");
		}
		Optional<String> problem = leaseProblem(lease, nodeTimeout);
		Duration holdAtMost = options.holdAtMostOrNull();
		if (problem.isEmpty() && holdAtMost != null) {
			problem = holdAtMostProblem(holdAtMost, lease);
		}
		if (problem.isEmpty()) {
			Duration holdAtLeast = options.holdAtLeastOrNull();
			Boolean renew = options.renewOrNull();
			problem = holdAtLeastProblem((holdAtLeast != null) ? holdAtLeast : Duration.ZERO, lease,
					renew == null || renew);
		}
		return problem;
	}

	/**
	 * A query of who holds a key ({@link DistributedLockRegistry#isLocked} and its
	 * siblings) is about one key in either mode, without permits.
	 * @param request the request a query was given
	 * @return the request
	 * @throws IllegalArgumentException if it is null, has several keys or permits
	 */
	public static LockRequest checkQuery(LockRequest request) {
		if (request == null) {
			throw new IllegalArgumentException("'request' must not be null");
		}
		if (request.keys().size() != 1 || request.permits() != 1) {
			throw new IllegalArgumentException(
					"a query of who holds a lock is about one key without permits, not " + request);
		}
		return request;
	}

}
