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
 * node (address without credentials, up, last latency, uptime, voting or held back by the
 * restart guard) and the leases this instance holds. {@code ?leaks=true} adds a bounded
 * scan for lock keys without a TTL.
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

	/**
	 * Create the endpoint.
	 * @param status the registry's status view
	 * @param admin the registry's operator actions
	 */
	public LocksEndpoint(RegistryStatus status, RegistryAdmin admin) {
		this.status = status;
		this.admin = admin;
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
					node.heldBackFor().toMillis(), node.sameServerAs()))
			.toList();
		List<LeaseDescriptor> leases = this.status.leases()
			.stream()
			.map((lease) -> new LeaseDescriptor(lease.lock(), lease.keys(), lease.heldSince().toString(),
					lease.remaining().toMillis(),
					lease.fencingToken().isPresent() ? lease.fencingToken().getAsLong() : null, lease.holdCount(),
					lease.mode(), lease.slot().isPresent() ? lease.slot().getAsInt() : null))
			.toList();
		List<String> leaked = Boolean.TRUE.equals(leaks) ? this.admin.keysWithoutTtl(LEAK_LIMIT) : null;
		return new LocksDescriptor(this.status.mode(), this.status.quorum(), this.status.quorumAvailable(), nodes,
				leases, leaked);
	}

	/**
	 * Force a lock open: offered only with unrestricted access to the endpoint.
	 * @param securityContext the caller, for the audit line
	 * @param key the full Redis key, such as {@code lock:orders:{42}} (URL-encode the
	 * braces)
	 * @return the key and how many nodes had it
	 * @throws InvalidEndpointRequestException (HTTP 400) if the key is outside the
	 * registry's key prefix
	 */
	@DeleteOperation
	public ForceUnlockDescriptor forceUnlock(SecurityContext securityContext,
			@Selector(match = Match.ALL_REMAINING) String... key) {
		String redisKey = String.join("/", key);
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
			List<LeaseDescriptor> leases, @Nullable List<String> keysWithoutTtl) {
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
	 */
	public record NodeDescriptor(String address, boolean up, double lastLatencyMillis, @Nullable Long uptimeSeconds,
			boolean voting, long heldBackMillis, @Nullable String sameServerAs) {

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
