package io.quorumlock.autoconfigure;

import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslManagerBundle;
import org.springframework.util.StringUtils;

import io.lettuce.core.SslOptions;

/**
 * Turns a Spring Boot SSL bundle into the Lettuce {@link SslOptions} of the engine's
 * {@code rediss://} nodes: the bundle's trust managers (a private CA), its key managers
 * (a client certificate, if it has a key store), its protocols and cipher suites.
 */
final class QuorumLockSsl {

	private QuorumLockSsl() {
	}

	/**
	 * The bundle named by {@code quorumlock.ssl.bundle}, or null when it is not set.
	 * @throws InvalidQuorumLockPropertyException if no such bundle is defined
	 */
	static SslBundle configuredBundle(QuorumLockProperties properties, SslBundles bundles) {
		String name = properties.getSsl().getBundle();
		if (!StringUtils.hasText(name)) {
			return null;
		}
		if (bundles == null) {
			throw new InvalidQuorumLockPropertyException("quorumlock.ssl.bundle", name,
					"there are no SSL bundles in this application (SslAutoConfiguration is not active)");
		}
		try {
			return bundles.getBundle(name);
		}
		catch (NoSuchSslBundleException ex) {
			throw new InvalidQuorumLockPropertyException("quorumlock.ssl.bundle", name,
					"no SSL bundle of that name; define it under spring.ssl.bundle.jks." + name
							+ " or spring.ssl.bundle.pem." + name);
		}
	}

	static SslOptions sslOptions(SslBundle bundle) {
		SslManagerBundle managers = bundle.getManagers();
		SslOptions.Builder builder = SslOptions.builder().jdkSslProvider();
		if (bundle.getStores().getKeyStore() != null) {
			builder.keyManager(managers.getKeyManagerFactory());
		}
		builder.trustManager(managers.getTrustManagerFactory());
		org.springframework.boot.ssl.SslOptions options = bundle.getOptions();
		if (options.getEnabledProtocols() != null) {
			builder.protocols(options.getEnabledProtocols());
		}
		if (options.getCiphers() != null) {
			builder.cipherSuites(options.getCiphers());
		}
		return builder.build();
	}

}
