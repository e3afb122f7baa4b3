package io.quorumlock.autoconfigure;

/**
 * TLS settings of the {@code https://} etcd endpoints.
 */
public final class EtcdSsl {

	/**
	 * Name of the SSL bundle (spring.ssl.bundle.*) whose trust material, and key material
	 * if it has any (etcd's client-certificate authentication), the https:// etcd
	 * endpoints use. Empty means the JDK's default trust store.
	 */
	private String bundle;

	public String getBundle() {
		return this.bundle;
	}

	public void setBundle(String bundle) {
		this.bundle = bundle;
	}

}
