package io.quorumlock.autoconfigure;

import io.quorumlock.redis.NodeUri;

/**
 * One Redis master of the quorum. Binds from a URI string or from an object with
 * {@code uri}, {@code username} and {@code password}; the password never appears in
 * {@link #toString()}.
 */
public final class NodeProperties {

	/**
	 * Redis URI: redis://host:port[/db], or rediss:// for TLS. May carry credentials, but
	 * the username and password properties keep them out of the URI.
	 */
	private String uri;

	/**
	 * Login username, overriding one in the URI.
	 */
	private String username;

	/**
	 * Login password, overriding one in the URI.
	 */
	private String password;

	/**
	 * Create a node to bind {@code uri}, {@code username} and {@code password} into.
	 */
	public NodeProperties() {
	}

	/**
	 * Create a node from its URI.
	 * @param uri the URI
	 */
	public NodeProperties(String uri) {
		this.uri = uri;
	}

	public String getUri() {
		return this.uri;
	}

	public void setUri(String uri) {
		this.uri = uri;
	}

	public String getUsername() {
		return this.username;
	}

	public void setUsername(String username) {
		this.username = username;
	}

	public String getPassword() {
		return this.password;
	}

	public void setPassword(String password) {
		this.password = password;
	}

	@Override
	public String toString() {
		return "Node[uri=" + NodeUri.redact(this.uri) + ", username=" + this.username + ", password="
				+ ((this.password != null) ? NodeUri.MASK : null) + "]";
	}

}
