package io.quorumlock.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * The masters of quorum mode, from somewhere other than {@code quorumlock.nodes}: for
 * example Redis containers declared with {@code @ServiceConnection(name = "quorumlock")}
 * in a test. When beans of this type exist, quorum mode runs on the nodes they list
 * (together, without repeats) instead of {@code quorumlock.nodes}; the other
 * {@code quorumlock.*} properties still apply.
 */
public interface QuorumLockConnectionDetails extends ConnectionDetails {

	/**
	 * The masters, in the syntax of {@code quorumlock.nodes}: {@code redis://host:port}
	 * or {@code rediss://host:port}, with at most a database number as the path.
	 * @return the node URIs, never {@code null}
	 */
	List<String> nodeUris();

}
