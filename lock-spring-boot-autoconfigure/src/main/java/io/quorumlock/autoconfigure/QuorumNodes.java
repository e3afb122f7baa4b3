package io.quorumlock.autoconfigure;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.lettuce.core.RedisURI;
import io.lettuce.core.StaticCredentialsProvider;

import io.quorumlock.redis.NodeUri;

/**
 * Turns {@code quorumlock.nodes} into Lettuce URIs, strictly: a scheme of redis or
 * rediss, a host, a numeric port and at most a database number, as {@link NodeUri} reads
 * every node URI, and no query or fragment. Messages name the property, such as
 * {@code quorumlock.nodes[1]}, and never repeat a password.
 */
final class QuorumNodes {

	private QuorumNodes() {
	}

	/**
	 * @throws InvalidQuorumLockPropertyException for a malformed or repeated node
	 */
	static List<RedisURI> toRedisUris(List<NodeProperties> nodes) {
		List<RedisURI> uris = new ArrayList<>(nodes.size());
		Map<String, String> seen = new HashMap<>();
		for (int i = 0; i < nodes.size(); i++) {
			String property = "quorumlock.nodes[" + i + "]";
			NodeProperties node = nodes.get(i);
			if (node == null) {
				throw new InvalidQuorumLockPropertyException(property, "", "a node needs a URI");
			}
			RedisURI uri = toRedisUri(property, node);
			String address = uri.getHost().toLowerCase(Locale.ROOT) + ":" + uri.getPort();
			String earlier = seen.putIfAbsent(address, property);
			if (earlier != null) {
				throw new InvalidQuorumLockPropertyException(property, NodeUri.redact(node.getUri()),
						address + " is already listed as " + earlier + "; each node must be a distinct master");
			}
			uris.add(uri);
		}
		return uris;
	}

	private static RedisURI toRedisUri(String property, NodeProperties node) {
		String text = node.getUri();
		if (text == null || text.isBlank()) {
			throw new InvalidQuorumLockPropertyException(property + ".uri", "", "a node needs a URI");
		}
		String shown = NodeUri.redact(text);
		Optional<String> problem = NodeUri.problem(text);
		if (problem.isPresent()) {
			throw new InvalidQuorumLockPropertyException(property, shown, problem.get());
		}
		URI uri = URI.create(text.trim());
		if (uri.getQuery() != null || uri.getFragment() != null) {
			// credentials belong in the node's properties, where Boot can mask them
			throw new InvalidQuorumLockPropertyException(property, shown,
					"must not have a query or fragment; set username and password as properties of the node");
		}
		return withCredentials(property, node, NodeUri.parse(text));
	}

	private static RedisURI withCredentials(String property, NodeProperties node, RedisURI uri) {
		boolean hasUsername = node.getUsername() != null && !node.getUsername().isEmpty();
		boolean hasPassword = node.getPassword() != null && !node.getPassword().isEmpty();
		if (hasUsername && !hasPassword) {
			throw new InvalidQuorumLockPropertyException(property + ".username", node.getUsername(),
					"needs " + property + ".password as well");
		}
		if (hasPassword) {
			uri.setCredentialsProvider(new StaticCredentialsProvider(hasUsername ? node.getUsername() : null,
					node.getPassword().toCharArray()));
		}
		return uri;
	}

}
