package io.quorumlock.redis;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;

import io.lettuce.core.RedisURI;

/**
 * The one reading of a node URI, {@code redis://[user:password@]host:port[/db]} or
 * {@code rediss://} for TLS, checked strictly (Lettuce alone takes
 * {@code redis://host:notaport} as a host name), and the one way to show a URI in a
 * message without its password. The builder and the configuration properties both use it;
 * each puts its own subject (a setting, a property) in front of the problem.
 */
public final class NodeUri {

	/** What replaces the user info of a URI in messages and logs. */
	public static final String MASK = "******";

	private NodeUri() {
	}

	/**
	 * Parse a node URI strictly.
	 * @param text the URI
	 * @return the Lettuce URI, with any credentials and database it names
	 * @throws IllegalArgumentException starting with {@code nodes:}, with the URI
	 * {@link #redact(String) redacted} and what is wrong with it
	 */
	public static RedisURI parse(String text) {
		Optional<String> problem = problem(text);
		if (problem.isPresent()) {
			throw new IllegalArgumentException(
					"nodes: " + ((text == null || text.isBlank()) ? "" : "'" + redact(text) + "' ") + problem.get());
		}
		return RedisURI.create(URI.create(text.trim()).toString());
	}

	/**
	 * What is wrong with a node URI, without repeating it (so never its password).
	 * @param text the URI
	 * @return what is wrong, or empty if {@link #parse(String)} accepts it
	 */
	public static Optional<String> problem(String text) {
		if (text == null || text.isBlank()) {
			return Optional.of("a node URI must not be empty");
		}
		URI uri;
		try {
			uri = new URI(text.trim());
		}
		catch (URISyntaxException ex) {
			return Optional.of("is not a valid URI: " + ex.getReason());
		}
		String scheme = uri.getScheme();
		if (!"redis".equals(scheme) && !"rediss".equals(scheme)) {
			return Optional
				.of("must start with redis:// or rediss://" + ((scheme != null) ? ", not " + scheme + "://" : ""));
		}
		if (uri.getHost() == null) {
			return Optional.of("needs a host and a numeric port, as redis://host:6379");
		}
		if (uri.getPort() == 0 || uri.getPort() > 65535) {
			return Optional.of("has port " + uri.getPort() + ", outside 1..65535");
		}
		String path = uri.getPath();
		if (path != null && !path.isEmpty() && !path.matches("/\\d{0,2}")) {
			return Optional.of("has path '" + path + "'; only a database number such as /0 is allowed");
		}
		try {
			RedisURI.create(uri.toString());
		}
		catch (RuntimeException ex) {
			return Optional.of("is not a valid Redis URI");
		}
		return Optional.empty();
	}

	/**
	 * A URI with its user info (user name and password) replaced by {@link #MASK}, for
	 * messages and logs.
	 * @param text the URI, or null
	 * @return the redacted URI, or null for null
	 */
	public static String redact(String text) {
		return (text != null) ? text.replaceAll("(?<=://)[^@/]*@", MASK + "@") : null;
	}

}
