package io.quorumlock.actuate;

import java.lang.System.Logger.Level;
import java.security.Principal;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;

import io.quorumlock.RegistryAdmin;
import io.quorumlock.RegistryStatus;

/**
 * The {@code locks} endpoint with its guarded write operation, {@code DELETE
 * /actuator/locks/{key}}: deletes a lock key on every node whoever holds it, audited at
 * WARN with the key and the caller's principal. Registered instead of
 * {@link LocksEndpoint} only when {@code quorumlock.actuator.force-unlock-enabled=true}.
 */
@Endpoint(id = "locks")
public class LocksWriteEndpoint extends LocksEndpoint {

	private static final System.Logger log = System.getLogger(LocksWriteEndpoint.class.getName());

	/**
	 * Create the endpoint.
	 * @param status the registry's status view
	 * @param admin the registry's operator actions
	 */
	public LocksWriteEndpoint(RegistryStatus status, RegistryAdmin admin) {
		super(status, admin);
	}

	/**
	 * Force a lock open.
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
			return new ForceUnlockDescriptor(redisKey, admin().forceUnlock(redisKey));
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

}
