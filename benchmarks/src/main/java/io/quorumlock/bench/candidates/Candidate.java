package io.quorumlock.bench.candidates;

import java.util.List;
import java.util.Locale;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

import io.quorumlock.LockMode;

/**
 * The candidates, by the name used as the JMH {@code candidate} parameter.
 */
public enum Candidate {

	/** {@code SET NX PX} + Lua compare-and-delete; for N nodes fanned out in parallel. */
	FLOOR("floor", "raw Lettuce floor"),

	/** quorumlock's programmatic API ({@code QuorumLockEngine}). */
	QUORUMLOCK("quorumlock", "quorumlock (programmatic)"),

	/**
	 * quorumlock's programmatic API without renewal (not in the default plan: for
	 * profiling the cost of the watchdog).
	 */
	QUORUMLOCK_NO_RENEW("quorumlock-norenew", "quorumlock (programmatic, renew off)"),

	/** quorumlock through {@code @DistributedLock} in a Spring context. */
	QUORUMLOCK_ASPECT("quorumlock-aspect", "quorumlock (@DistributedLock)"),

	/** Redisson {@code RLock} with a fixed lease. */
	REDISSON_LEASE("redisson-lease", "Redisson RLock (lease)"),

	/** Redisson {@code RLock} with the watchdog. */
	REDISSON_WATCHDOG("redisson-watchdog", "Redisson RLock (watchdog)"),

	/** Redisson {@code RedissonRedLock} over one client per master. */
	REDISSON_REDLOCK("redisson-redlock", "RedissonRedLock"),

	/** Spring Integration {@code RedisLockRegistry}, spin lock. */
	SI_SPIN("si-spin", "Spring Integration (spin)"),

	/** Spring Integration {@code RedisLockRegistry}, pub/sub lock. */
	SI_PUBSUB("si-pubsub", "Spring Integration (pub/sub)"),

	/** quorumlock's programmatic API, shared mode ({@code LockMode.SHARED}). */
	QUORUMLOCK_SHARED("quorumlock-shared", "quorumlock (shared)"),

	/** quorumlock's programmatic API, one of {@value #PERMITS} permits. */
	QUORUMLOCK_PERMITS("quorumlock-permits", "quorumlock (permit of " + Candidate.PERMITS + ")"),

	/** Redisson {@code RReadWriteLock.readLock()} with a fixed lease. */
	REDISSON_SHARED("redisson-shared", "Redisson RReadWriteLock.readLock() (lease)"),

	/**
	 * Redisson {@code RPermitExpirableSemaphore} of {@value #PERMITS} permits, acquired
	 * with a lease and released by permit id.
	 */
	REDISSON_PERMITS("redisson-permits", "Redisson RPermitExpirableSemaphore (" + Candidate.PERMITS + ", lease)");

	/** Permits of the semaphore candidates. */
	public static final int PERMITS = 3;

	private final String id;

	private final String label;

	Candidate(String id, String label) {
		this.id = id;
		this.label = label;
	}

	/**
	 * The parameter value.
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

	/**
	 * A name for tables.
	 * @return the label
	 */
	public String label() {
		return this.label;
	}

	/**
	 * Look a candidate up by its id.
	 * @param id the id
	 * @return the candidate
	 */
	public static Candidate of(String id) {
		for (Candidate candidate : values()) {
			if (candidate.id.equals(id.toLowerCase(Locale.ROOT))) {
				return candidate;
			}
		}
		throw new IllegalArgumentException("unknown candidate '" + id + "'");
	}

	/**
	 * Open this candidate on the given nodes.
	 * @param nodes Redis URIs: one for the single-node candidates, N for quorum ones
	 * @return a new client, to close
	 */
	public LockClient open(List<String> nodes) {
		boolean single = nodes.size() == 1;
		if (!single && this != FLOOR && this != QUORUMLOCK && this != QUORUMLOCK_NO_RENEW && this != QUORUMLOCK_ASPECT
				&& this != REDISSON_REDLOCK && this != QUORUMLOCK_SHARED && this != QUORUMLOCK_PERMITS) {
			throw new IllegalArgumentException(this.id + " works on one node, not " + nodes.size());
		}
		return switch (this) {
			case FLOOR -> new FloorClient(nodes);
			case QUORUMLOCK -> new QuorumLockClient(nodes, true);
			case QUORUMLOCK_NO_RENEW -> new QuorumLockClient(nodes, false);
			case QUORUMLOCK_SHARED -> new QuorumLockClient(nodes, (request) -> request.mode(LockMode.SHARED));
			case QUORUMLOCK_PERMITS -> new QuorumLockClient(nodes, (request) -> request.permits(PERMITS));
			case QUORUMLOCK_ASPECT -> new AspectClient(nodes);
			case REDISSON_LEASE -> new RedissonLockClient(nodes, RedissonLockClient.Mode.LEASE);
			case REDISSON_WATCHDOG -> new RedissonLockClient(nodes, RedissonLockClient.Mode.WATCHDOG);
			case REDISSON_REDLOCK -> new RedissonLockClient(nodes, RedissonLockClient.Mode.REDLOCK);
			case SI_SPIN -> new SpringIntegrationClient(nodes.get(0), RedisLockType.SPIN_LOCK);
			case SI_PUBSUB -> new SpringIntegrationClient(nodes.get(0), RedisLockType.PUB_SUB_LOCK);
			case REDISSON_SHARED -> new RedissonSharedClient(nodes.get(0), 0);
			case REDISSON_PERMITS -> new RedissonSharedClient(nodes.get(0), PERMITS);
		};
	}

}
