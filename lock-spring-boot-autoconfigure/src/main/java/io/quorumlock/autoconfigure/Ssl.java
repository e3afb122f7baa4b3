package io.quorumlock.autoconfigure;

/**
 * TLS settings of the {@code rediss://} nodes.
 */
public final class Ssl {

	/**
	 * Name of the SSL bundle (spring.ssl.bundle.*) whose trust material, and key material
	 * if it has any, the rediss:// nodes use. Empty means the JDK's default trust store.
	 * Single mode uses the bundle of spring.data.redis.ssl unless this is set.
	 */
	private String bundle;

	public String getBundle() {
		return this.bundle;
	}

	public void setBundle(String bundle) {
		this.bundle = bundle;
	}

}
