package io.quorumlock.actuate;

import java.lang.System.Logger.Level;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;

import io.quorumlock.RegistryAdmin;
import io.quorumlock.RegistryStatus;

/**
 * The {@code locks} endpoint with its guarded write operation, {@code DELETE
 * /actuator/locks/{key}}: deletes a lock key on every node whoever holds it, audited at
 * WARN. Registered instead of {@link LocksEndpoint} only when
 * {@code quorumlock.actuator.force-unlock-enabled=true}.
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
	 * @param key the full Redis key, such as {@code lock:orders:{42}} (URL-encode the
	 * braces)
	 * @return the key and how many nodes had it
	 */
	@DeleteOperation
	public ForceUnlockDescriptor forceUnlock(@Selector(match = Match.ALL_REMAINING) String... key) {
		String redisKey = String.join("/", key);
		log.log(Level.WARNING, "Actuator force-unlock of lock key " + redisKey);
		int nodes = admin().forceUnlock(redisKey);
		return new ForceUnlockDescriptor(redisKey, nodes);
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
