package io.quorumlock.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.lettuce.core.RedisURI;
import io.lettuce.core.StaticCredentialsProvider;

/**
 * Turns {@code quorumlock.nodes} into Lettuce URIs, strictly: a scheme of redis or
 * rediss, a host, a numeric port and at most a database number (Lettuce alone takes
 * {@code redis://host:notaport} as a host name). Messages name the property, such as
 * {@code quorumlock.nodes[1]}, and never repeat a password.
 */
final class QuorumNodes {

	private QuorumNodes() {
	}

	/**
	 * @throws InvalidQuorumLockPropertyException for a malformed or repeated node
	 */
	static List<RedisURI> toRedisUris(List<QuorumLockProperties.Node> nodes) {
		List<RedisURI> uris = new ArrayList<>(nodes.size());
		Map<String, String> seen = new HashMap<>();
		for (int i = 0; i < nodes.size(); i++) {
			String property = "quorumlock.nodes[" + i + "]";
			QuorumLockProperties.Node node = nodes.get(i);
			if (node == null) {
				throw new InvalidQuorumLockPropertyException(property, "", "a node needs a URI");
			}
			RedisURI uri = toRedisUri(property, node);
			String address = uri.getHost().toLowerCase(Locale.ROOT) + ":" + uri.getPort();
			String earlier = seen.putIfAbsent(address, property);
			if (earlier != null) {
				throw new InvalidQuorumLockPropertyException(property, redact(node.getUri()),
						address + " is already listed as " + earlier + "; each node must be a distinct master");
			}
			uris.add(uri);
		}
		return uris;
	}

	private static RedisURI toRedisUri(String property, QuorumLockProperties.Node node) {
		String text = node.getUri();
		String shown = redact(text);
		if (text == null || text.isBlank()) {
			throw new InvalidQuorumLockPropertyException(property + ".uri", "", "a node needs a URI");
		}
		URI uri;
		try {
			uri = new URI(text.trim());
		}
		catch (URISyntaxException ex) {
			throw new InvalidQuorumLockPropertyException(property, shown, "is not a valid URI: " + ex.getReason());
		}
		String scheme = uri.getScheme();
		if (!"redis".equals(scheme) && !"rediss".equals(scheme)) {
			throw new InvalidQuorumLockPropertyException(property, shown, "must start with redis:// or rediss://");
		}
		if (uri.getHost() == null) {
			throw new InvalidQuorumLockPropertyException(property, shown,
					"needs a host and a numeric port, as redis://host:6379");
		}
		if (uri.getPort() == 0 || uri.getPort() > 65535) {
			throw new InvalidQuorumLockPropertyException(property, shown,
					"has port " + uri.getPort() + ", outside 1..65535");
		}
		String path = uri.getPath();
		if (path != null && !path.isEmpty() && !path.matches("/\\d{0,2}")) {
			throw new InvalidQuorumLockPropertyException(property, shown,
					"has path '" + path + "'; only a database number such as /0 is allowed");
		}
		if (uri.getQuery() != null || uri.getFragment() != null) {
			throw new InvalidQuorumLockPropertyException(property, shown,
					"must not have a query or fragment; set username and password as properties of the node");
		}
		RedisURI redisUri;
		try {
			redisUri = RedisURI.create(uri.toString());
		}
		catch (RuntimeException ex) {
			throw new InvalidQuorumLockPropertyException(property, shown, "is not a valid Redis URI");
		}
		return withCredentials(property, node, redisUri);
	}

	private static RedisURI withCredentials(String property, QuorumLockProperties.Node node, RedisURI uri) {
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

	/** The URI with any user info masked, for messages and logs. */
	static String redact(String uri) {
		return (uri != null) ? uri.replaceAll("(?<=://)[^@/]*@", "******@") : null;
	}

}
