package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.lang.Nullable;
import org.springframework.util.ClassUtils;

import io.quorumlock.RegistryStatus;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * The one INFO line that says what the starter chose: the mode, the nodes (host and port,
 * never credentials) and where they come from ({@code quorumlock.nodes},
 * {@code spring.data.redis}, a service connection or {@code quorumlock.etcd.endpoints}),
 * the quorum, the node timeout and the restart guard in force.
 */
final class QuorumLockStartupLog {

	private static final Log logger = LogFactory.getLog(QuorumLockStartupLog.class);

	private QuorumLockStartupLog() {
	}

	/** Where the masters come from when {@code quorumlock.nodes} lists them. */
	static final String NODES = "quorumlock.nodes";

	/** Where single mode's server comes from when Spring Boot's properties give it. */
	static final String SPRING_DATA_REDIS = "spring.data.redis";

	/**
	 * The class of the connection details of Redis containers declared as quorum masters.
	 */
	private static final String CONTAINER_DETAILS = "io.quorumlock.autoconfigure.QuorumLockContainerConnectionDetailsFactory$";

	/** Redis containers declared as quorum masters. */
	private static final String CONTAINERS = "Testcontainers service connection @ServiceConnection(name = \"quorumlock\")";

	static void log(QuorumLockEngine engine, QuorumLockProperties properties, String source) {
		if (logger.isInfoEnabled()) {
			logger.info(describe(engine, properties, source));
		}
	}

	/**
	 * The start-up line.
	 * @param source where the nodes come from: {@link #NODES}, {@link #SPRING_DATA_REDIS}
	 * or a service connection ({@link #quorumSource}, {@link #singleSource})
	 */
	static String describe(QuorumLockEngine engine, QuorumLockProperties properties, String source) {
		StringBuilder line = new StringBuilder("quorumlock: ");
		boolean quorum = "quorum".equals(engine.mode());
		if (quorum) {
			line.append("quorum mode on ")
				.append(engine.nodeAddresses().size())
				.append(" masters ")
				.append(engine.nodeAddresses())
				.append(" (")
				.append(source)
				.append((!NODES.equals(source) && !properties.getNodes().isEmpty()) ? ", in place of quorumlock.nodes"
						: "")
				.append("), quorum ")
				.append(engine.quorum());
		}
		else {
			line.append("single mode on ")
				.append(engine.nodeAddresses().get(0))
				.append(" (")
				.append(source)
				.append(NODES.equals(source) ? " lists one master; list three or more for a quorum)"
						: "; set quorumlock.nodes for a quorum of masters)");
		}
		line.append(", node-timeout ").append(format(engine.nodeTimeout()));
		if (NodeTimeouts.isDefaulted(properties) && !quorum) {
			line.append(" (one node's default; set quorumlock.node-timeout to choose)");
		}
		Duration guard = engine.rejoinDelay();
		if (!quorum) {
			line.append(", no restart guard (single mode)");
		}
		else if (guard.isZero()) {
			line.append(", restart guard OFF (quorumlock.rejoin-delay=0)");
		}
		else {
			line.append(", restart guard ")
				.append(format(guard))
				.append((properties.getRejoinDelay() != null) ? " (quorumlock.rejoin-delay)"
						: " (the longest declared lease)")
				.append(": a master that lost its data does not vote for that long");
			if (!properties.getFreshMasterRunIds().isEmpty()) {
				line.append(", except ")
					.append(properties.getFreshMasterRunIds().size())
					.append(" run_id(s) declared brand new (quorumlock.fresh-master-run-ids)");
			}
		}
		return line.toString();
	}

	static void logEtcd(RegistryStatus registry, QuorumLockProperties properties) {
		if (logger.isInfoEnabled()) {
			logger.info(describeEtcd(registry, properties));
		}
	}

	/**
	 * The start-up line of etcd mode: the endpoints (host and port), the user if any
	 * (never the password), the request timeout, the key prefix and what decides a grant.
	 */
	static String describeEtcd(RegistryStatus registry, QuorumLockProperties properties) {
		List<String> addresses = registry.nodes().stream().map(RegistryStatus.Node::address).toList();
		EtcdProperties etcd = properties.getEtcd();
		StringBuilder line = new StringBuilder("quorumlock: etcd mode on ").append(addresses.size())
			.append((addresses.size() == 1) ? " endpoint " : " endpoints ")
			.append(addresses)
			.append(" (quorumlock.etcd.endpoints");
		if (etcd.getUsername() != null) {
			line.append(", user '").append(etcd.getUsername()).append("'");
		}
		return line.append("), request-timeout ")
			.append(format(etcd.getRequestTimeout()))
			.append(", key prefix '")
			.append(properties.getKeyPrefix())
			.append("': each grant is decided by the etcd cluster's raft majority (")
			.append(registry.quorum())
			.append(" of ")
			.append(addresses.size())
			.append(" listed members), no restart guard needed")
			.toString();
	}

	/**
	 * Where quorum mode's masters come from, given the
	 * {@link QuorumLockConnectionDetails} beans (name to class name, in order):
	 * {@code quorumlock.nodes} without any, a Testcontainers service connection, or the
	 * beans by name.
	 */
	static String quorumSource(Map<String, String> connectionDetails) {
		if (connectionDetails.isEmpty()) {
			return NODES;
		}
		List<String> parts = new ArrayList<>();
		List<String> beans = new ArrayList<>();
		connectionDetails.forEach((name, type) -> {
			if (type.startsWith(CONTAINER_DETAILS)) {
				if (!parts.contains(CONTAINERS)) {
					parts.add(CONTAINERS);
				}
			}
			else {
				beans.add("'" + name + "'");
			}
		});
		if (!beans.isEmpty()) {
			parts.add(((beans.size() == 1) ? "QuorumLockConnectionDetails bean " : "QuorumLockConnectionDetails beans ")
					+ String.join(", ", beans));
		}
		return String.join(" and ", parts);
	}

	/**
	 * Where single mode's server comes from, given the class of Spring Boot's Redis
	 * connection details: {@code spring.data.redis} (Boot's properties), a Testcontainers
	 * or Docker Compose service connection, or another connection-details bean.
	 */
	static String singleSource(@Nullable Object connectionDetails) {
		if (connectionDetails == null || connectionDetails.getClass().getSimpleName().startsWith("Properties")) {
			return SPRING_DATA_REDIS;
		}
		String type = connectionDetails.getClass().getName();
		if (type.contains(".testcontainers.")) {
			return "Testcontainers service connection";
		}
		if (type.contains(".docker.compose.")) {
			return "Docker Compose service connection";
		}
		return "Redis connection details " + ClassUtils.getShortName(type);
	}

	/** 50ms, 10s, 2m, 1500ms: the way the property is usually written. */
	static String format(Duration duration) {
		long millis = duration.toMillis();
		if (millis != 0 && millis % 60_000 == 0) {
			return (millis / 60_000) + "m";
		}
		if (millis != 0 && millis % 1000 == 0) {
			return (millis / 1000) + "s";
		}
		return millis + "ms";
	}

}
