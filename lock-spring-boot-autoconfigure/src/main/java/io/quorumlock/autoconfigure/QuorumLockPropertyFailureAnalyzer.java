package io.quorumlock.autoconfigure;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

/**
 * Explains an {@link InvalidQuorumLockPropertyException}: which property, which value,
 * where it was set, and what to do.
 */
class QuorumLockPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidQuorumLockPropertyException> {

	private final Environment environment;

	QuorumLockPropertyFailureAnalyzer(Environment environment) {
		this.environment = environment;
	}

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidQuorumLockPropertyException cause) {
		StringBuilder description = new StringBuilder();
		description.append("Invalid quorumlock configuration: '")
			.append(cause.getProperty())
			.append("' is '")
			.append(cause.getValue())
			.append("'");
		Origin origin = origin(cause.getProperty());
		if (origin != null) {
			description.append(" (from ").append(origin).append(")");
		}
		description.append(".\n\nReason: ").append(cause.getReason());
		String where = (origin != null) ? "Where it is set (" + origin + "): " : "";
		return new FailureAnalysis(description.toString(), where + action(cause.getProperty(), cause.getReason()),
				cause);
	}

	private static String action(String property, String reason) {
		if (property.startsWith("quorumlock.nodes")) {
			return "List each Redis master once in quorumlock.nodes, as redis://host:port[/db] or rediss://host:port "
					+ "for TLS, with credentials in the node's username and password properties; or leave "
					+ "quorumlock.nodes empty to lock on the application's spring.data.redis connection "
					+ "(standalone or Sentinel).";
		}
		if (property.equals("quorumlock.etcd.endpoints") && reason.contains("lock-etcd is not on the class path")) {
			return "Add the dependency io.quorumlock:lock-etcd beside the starter (the version comes from quorumlock-bom), "
					+ "or remove quorumlock.etcd.endpoints to lock on Redis.";
		}
		if (property.equals("quorumlock.etcd.endpoints")) {
			return "Choose one backend: keep quorumlock.etcd.endpoints and remove quorumlock.nodes (and any "
					+ "@ServiceConnection(name = \"quorumlock\") Redis container) to lock on etcd, or remove "
					+ "quorumlock.etcd.endpoints to lock on Redis.";
		}
		if (property.startsWith("quorumlock.etcd.endpoints[")) {
			return "Write each etcd endpoint as a client URL, http://host:port or https://host:port (etcd's "
					+ "--advertise-client-urls), such as http://etcd-1:2379.";
		}
		if (property.equals("quorumlock.etcd.ssl.bundle")) {
			return "Define the SSL bundle under spring.ssl.bundle.pem.<name> (or .jks.<name>) with the CA that signed "
					+ "the etcd members' certificates as its truststore (and a keystore for client certificates), list "
					+ "the endpoints as https://host:port, or remove quorumlock.etcd.ssl.bundle.";
		}
		if (property.equals("quorumlock.etcd.request-timeout")) {
			return "Lower quorumlock.etcd.request-timeout or lengthen the lease it names: a lease that renews must be "
					+ "longer than three request timeouts, because its keep-alive every lease/3 has to fit in it.";
		}
		if (property.equals("quorumlock.node-timeout")) {
			return "Lower quorumlock.node-timeout or lengthen the lease it names: a lease must be longer than three "
					+ "node timeouts, because its renewal every lease/3 has to fit in it.";
		}
		if (property.equals("quorumlock.ssl.bundle")) {
			return "Define the SSL bundle under spring.ssl.bundle.pem.<name> (or .jks.<name>) with the CA that signed "
					+ "the Redis certificates as its truststore, or remove quorumlock.ssl.bundle to use the JDK's "
					+ "default trust store.";
		}
		if (property.equals("quorumlock.max-key-length")) {
			return "Set quorumlock.max-key-length to a positive number of characters (512 by default).";
		}
		if (property.equals("quorumlock.clock-drift-factor")) {
			return "Set quorumlock.clock-drift-factor to at least 0 and below 0.5 (0.01 by default).";
		}
		if (property.equals("quorumlock.rejoin-delay")) {
			return "Set quorumlock.rejoin-delay to at least the longest lease in use, on every instance, or remove it "
					+ "(the longest lease is the default).";
		}
		if (property.startsWith("quorumlock.instances.")
				&& !property.substring("quorumlock.instances.".length()).contains(".")) {
			return "Rename the instance " + property + " to a lock name without '{' or '}'.";
		}
		return "Change " + property + " to a value that keeps the rule it broke (" + reason
				+ "); durations are written like 500ms, 30s, 2m or PT30S.";
	}

	private Origin origin(String property) {
		if (this.environment == null) {
			return null;
		}
		try {
			ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
			for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
				ConfigurationProperty found = source.getConfigurationProperty(name);
				if (found != null) {
					return found.getOrigin();
				}
			}
		}
		catch (RuntimeException ex) {
			// not a property name Boot can look up (such as a whole list): no origin
		}
		return null;
	}

}
