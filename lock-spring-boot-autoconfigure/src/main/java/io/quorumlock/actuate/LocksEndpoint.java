package io.quorumlock.actuate;

import java.lang.System.Logger.Level;
import java.security.Principal;
import java.util.List;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.lang.Nullable;

import io.quorumlock.RegistryAdmin;
import io.quorumlock.RegistryStatus;

/**
 * The {@code locks} actuator endpoint ({@code GET /actuator/locks}): mode, quorum, each
 * node (address without credentials, up, last latency, uptime, its state and since when,
 * its last failure in the server's or the transport's words, its answers per outcome),
 * the leases this instance holds, and the last failure of each lock and outcome with its
 * full message. {@code ?leaks=true} adds a bounded scan for lock keys without a TTL.
 * <p>
 * Its write operation, {@code DELETE /actuator/locks/{key}}, deletes a lock key on every
 * node whoever holds it, audited at WARN with the key and the caller's principal. Boot's
 * endpoint access model governs it: the endpoint's default access is read-only, so the
 * operation is not offered (over HTTP or JMX) unless
 * {@code management.endpoint.locks.access=unrestricted}.
 */
@Endpoint(id = "locks", defaultAccess = Access.READ_ONLY)
public class LocksEndpoint {

	private static final System.Logger log = System.getLogger(LocksEndpoint.class.getName());

	/** Most leaked keys reported by one scan. */
	static final int LEAK_LIMIT = 100;

	private final RegistryStatus status;

	private final RegistryAdmin admin;

	private final RecentLockFailures failures;

	/**
	 * Create the endpoint without recent failures.
	 * @param status the registry's status view
	 * @param admin the registry's operator actions
	 */
	public LocksEndpoint(RegistryStatus status, RegistryAdmin admin) {
		this(status, admin, null);
	}

	/**
	 * Create the endpoint.
	 * @param status the registry's status view
	 * @param admin the registry's operator actions; null for a registry that offers none
	 * (a registry of the application's with a status view only): force-unlock is then
	 * refused and no leak scan is made
	 * @param failures the last failure of each lock and outcome, with its full message;
	 * null for none
	 */
	public LocksEndpoint(RegistryStatus status, @Nullable RegistryAdmin admin, @Nullable RecentLockFailures failures) {
		this.status = status;
		this.admin = admin;
		this.failures = failures;
	}

	/**
	 * The registry's state.
	 * @param leaks whether to scan for lock keys without a TTL; optional (absent means no
	 * scan) on both Spring Boot lines: Spring Framework 7 (Boot 4) reads JSpecify's
	 * {@code @Nullable}, Spring Framework 6 (Boot 3) reads Spring's own
	 * @return the state
	 */
	@ReadOperation
	public LocksDescriptor locks(@org.jspecify.annotations.Nullable @Nullable Boolean leaks) {
		List<NodeDescriptor> nodes = this.status.nodes()
			.stream()
			.map((node) -> new NodeDescriptor(node.address(), node.up(), node.lastLatency().toNanos() / 1_000_000.0,
					node.uptime().isNegative() ? null : node.uptime().toSeconds(), node.voting(),
					node.heldBackFor().toMillis(), node.sameServerAs(), node.state().tag(), node.lastError(),
					(node.since() != null) ? node.since().toString() : null, node.answers()))
			.toList();
		List<LeaseDescriptor> leases = this.status.leases()
			.stream()
			.map((lease) -> new LeaseDescriptor(lease.lock(), lease.keys(), lease.heldSince().toString(),
					lease.remaining().toMillis(),
					lease.fencingToken().isPresent() ? lease.fencingToken().getAsLong() : null, lease.holdCount(),
					lease.mode(), lease.slot().isPresent() ? lease.slot().getAsInt() : null))
			.toList();
		List<String> leaked = (Boolean.TRUE.equals(leaks) && this.admin != null) ? this.admin.keysWithoutTtl(LEAK_LIMIT)
				: null;
		List<FailureDescriptor> recent = (this.failures != null) ? this.failures.failures()
			.stream()
			.map((failure) -> new FailureDescriptor(failure.lock(), failure.outcome(), failure.at().toString(),
					failure.count(), failure.message()))
			.toList() : List.of();
		return new LocksDescriptor(this.status.mode(), this.status.quorum(), this.status.quorumAvailable(), nodes,
				leases, leaked, recent);
	}

	/**
	 * Force a lock open: offered only with unrestricted access to the endpoint.
	 * @param securityContext the caller, for the audit line
	 * @param key the full Redis key, such as {@code lock:orders:{42}}: in the path
	 * ({@code DELETE /actuator/locks/lock:orders:%7B42%7D}, the braces URL-encoded, a
	 * {@code /} written as it is, since servers such as Tomcat refuse {@code %2F} in a
	 * path), or as the {@code key} query parameter, URL-encoded whole as any HTTP client
	 * encodes a parameter
	 * ({@code DELETE /actuator/locks?key=lock%3Afiles%3A%7Ba%2Fb%7D}), which takes any
	 * key
	 * @return the key and how many nodes had it
	 * @throws InvalidEndpointRequestException (HTTP 400) if the key is outside the
	 * registry's key prefix, or the registry offers no force-unlock
	 */
	@DeleteOperation
	public ForceUnlockDescriptor forceUnlock(SecurityContext securityContext,
			@Selector(match = Match.ALL_REMAINING) String... key) {
		String redisKey = String.join("/", key);
		if (this.admin == null) {
			throw new InvalidEndpointRequestException(
					"force-unlock is not offered in " + this.status.mode()
							+ " mode: a hold ends when its holder releases it or its lease expires",
					"force-unlock not offered");
		}
		Principal principal = (securityContext != null) ? securityContext.getPrincipal() : null;
		String caller = (principal != null) ? principal.getName() : "an unauthenticated caller";
		log.log(Level.WARNING, "Actuator force-unlock of lock key " + redisKey + " by " + caller);
		try {
			return new ForceUnlockDescriptor(redisKey, this.admin.forceUnlock(redisKey));
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "not a lock key");
		}
	}

	/**
	 * Outcome of a forced unlock.
	 *
	 * @param key the Redis key
	 * @param deletedOnNodes how many nodes had the key
	 */
	public record ForceUnlockDescriptor(String key, int deletedOnNodes) {
	}

	/**
	 * The registry's state.
	 *
	 * @param mode {@code single} or {@code quorum}
	 * @param quorum votes a grant needs
	 * @param quorumAvailable whether a quorum of nodes is up and voting
	 * @param nodes each node
	 * @param leases leases held by this instance
	 * @param keysWithoutTtl leaked lock keys ({@code host:port key}), when asked for
	 */
	public record LocksDescriptor(String mode, int quorum, boolean quorumAvailable, List<NodeDescriptor> nodes,
			List<LeaseDescriptor> leases, @Nullable List<String> keysWithoutTtl,
			List<FailureDescriptor> recentFailures) {

		/**
		 * The registry's state without recent failures.
		 * @param mode {@code single} or {@code quorum}
		 * @param quorum votes a grant needs
		 * @param quorumAvailable whether a quorum of nodes is up and voting
		 * @param nodes each node
		 * @param leases leases held by this instance
		 * @param keysWithoutTtl leaked lock keys ({@code host:port key}), when asked for
		 */
		public LocksDescriptor(String mode, int quorum, boolean quorumAvailable, List<NodeDescriptor> nodes,
				List<LeaseDescriptor> leases, @Nullable List<String> keysWithoutTtl) {
			this(mode, quorum, quorumAvailable, nodes, leases, keysWithoutTtl, List.of());
		}

	}

	/**
	 * The last failure of one lock and outcome, as the server saw it: what an API client
	 * is told only as a category.
	 *
	 * @param lock the lock's label, never an evaluated key
	 * @param outcome {@code timeout}, {@code quorum_unavailable}, {@code error} or
	 * {@code lost}
	 * @param at when it happened (ISO-8601)
	 * @param count failures of this lock and outcome since start-up
	 * @param message the full message: key, figures, each master's failure in its own
	 * words, never credentials
	 */
	public record FailureDescriptor(String lock, String outcome, String at, long count, String message) {
	}

	/**
	 * One node.
	 *
	 * @param address host and port, never credentials
	 * @param up whether its connection is open
	 * @param lastLatencyMillis round trip of its last answered command
	 * @param uptimeSeconds how long the server has been up; null while unknown
	 * @param voting whether it counts toward a quorum
	 * @param heldBackMillis how much longer the restart guard holds it back
	 * @param sameServerAs the address of an earlier node that reaches the same Redis
	 * server (the same {@code run_id}) and votes for it; null if none
	 * @param state {@code voting}, {@code held-back}, {@code down}, {@code same-server}
	 * or {@code evicting}
	 * @param lastError its last failure in the server's or the transport's own words
	 * (while it does not vote, why not); null if none; never credentials
	 * @param since when it entered its state (ISO-8601); null if unknown
	 * @param answers how it answered the rounds so far, per outcome
	 */
	public record NodeDescriptor(String address, boolean up, double lastLatencyMillis, @Nullable Long uptimeSeconds,
			boolean voting, long heldBackMillis, @Nullable String sameServerAs, String state,
			@Nullable String lastError, @Nullable String since, RegistryStatus.Answers answers) {

		/**
		 * A node without its state, last failure and answers (derived from {@code up},
		 * {@code voting} and {@code sameServerAs}, none, and none).
		 * @param address host and port, never credentials
		 * @param up whether its connection is open
		 * @param lastLatencyMillis round trip of its last answered command
		 * @param uptimeSeconds how long the server has been up; null while unknown
		 * @param voting whether it counts toward a quorum
		 * @param heldBackMillis how much longer the restart guard holds it back
		 * @param sameServerAs the address of an earlier node that reaches the same Redis
		 * server and votes for it; null if none
		 */
		public NodeDescriptor(String address, boolean up, double lastLatencyMillis, @Nullable Long uptimeSeconds,
				boolean voting, long heldBackMillis, @Nullable String sameServerAs) {
			this(address, up, lastLatencyMillis, uptimeSeconds, voting, heldBackMillis, sameServerAs,
					RegistryStatus.NodeState.of(up, voting, sameServerAs).tag(), null, null,
					RegistryStatus.Answers.NONE);
		}

		/**
		 * A node that is no other node's duplicate.
		 * @param address host and port, never credentials
		 * @param up whether its connection is open
		 * @param lastLatencyMillis round trip of its last answered command
		 * @param uptimeSeconds how long the server has been up; null while unknown
		 * @param voting whether it counts toward a quorum
		 * @param heldBackMillis how much longer the restart guard holds it back
		 */
		public NodeDescriptor(String address, boolean up, double lastLatencyMillis, @Nullable Long uptimeSeconds,
				boolean voting, long heldBackMillis) {
			this(address, up, lastLatencyMillis, uptimeSeconds, voting, heldBackMillis, null);
		}

	}

	/**
	 * One lease held by this instance.
	 *
	 * @param lock the lock's label, never an evaluated key
	 * @param keys the Redis keys held
	 * @param heldSince when it was granted (ISO-8601)
	 * @param remainingMillis validity left
	 * @param fencingToken its fencing token, if one was asked for
	 * @param holdCount holds by its thread
	 * @param mode {@code exclusive}, {@code shared} or {@code permit}
	 * @param slot the permit slot it owns, for a permit; null otherwise
	 */
	public record LeaseDescriptor(String lock, List<String> keys, String heldSince, long remainingMillis,
			@Nullable Long fencingToken, int holdCount, String mode, @Nullable Integer slot) {

		/**
		 * An exclusive lease.
		 * @param lock the lock's label, never an evaluated key
		 * @param keys the Redis keys held
		 * @param heldSince when it was granted (ISO-8601)
		 * @param remainingMillis validity left
		 * @param fencingToken its fencing token, if one was asked for
		 * @param holdCount holds by its thread
		 */
		public LeaseDescriptor(String lock, List<String> keys, String heldSince, long remainingMillis,
				@Nullable Long fencingToken, int holdCount) {
			this(lock, keys, heldSince, remainingMillis, fencingToken, holdCount, "exclusive", null);
		}

	}

}
