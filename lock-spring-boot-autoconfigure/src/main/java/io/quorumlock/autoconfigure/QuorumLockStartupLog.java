package io.quorumlock.autoconfigure;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.quorumlock.redis.QuorumLockEngine;

/**
 * The one INFO line that says what the starter chose: the mode, the nodes (host and port,
 * never credentials), the quorum, the node timeout and the restart guard in force.
 */
final class QuorumLockStartupLog {

	private static final Log logger = LogFactory.getLog(QuorumLockAutoConfiguration.class);

	private QuorumLockStartupLog() {
	}

	static void log(QuorumLockEngine engine, QuorumLockProperties properties) {
		if (logger.isInfoEnabled()) {
			logger.info(describe(engine, properties));
		}
	}

	static String describe(QuorumLockEngine engine, QuorumLockProperties properties) {
		StringBuilder line = new StringBuilder("quorumlock: ");
		boolean quorum = "quorum".equals(engine.mode());
		if (quorum) {
			line.append("quorum mode on ")
				.append(engine.nodeAddresses().size())
				.append(" masters ")
				.append(engine.nodeAddresses())
				.append(" (quorumlock.nodes), quorum ")
				.append(engine.quorum());
		}
		else {
			line.append("single mode on ")
				.append(engine.nodeAddresses().get(0))
				.append(" (spring.data.redis; set quorumlock.nodes for a quorum of masters)");
		}
		line.append(", node-timeout ").append(format(properties.getNodeTimeout()));
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
