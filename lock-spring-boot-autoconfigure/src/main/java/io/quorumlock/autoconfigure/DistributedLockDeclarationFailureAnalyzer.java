package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

import io.quorumlock.LockRules;
import io.quorumlock.aop.DistributedLockDeclarationException;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * Explains a {@link DistributedLockDeclarationException}, and every other bad declaration
 * suppressed in it: which method, which attribute, and what to change where. A lease that
 * is too short for {@code quorumlock.node-timeout} blames the property when it was set
 * and the lease would pass the default node timeout: the node timeout is what changed.
 */
class DistributedLockDeclarationFailureAnalyzer extends AbstractFailureAnalyzer<DistributedLockDeclarationException> {

	private static final String NODE_TIMEOUT = "quorumlock.node-timeout";

	/** What {@link LockRules#leaseProblem} says, to recognise its refusal. */
	private static final String TOO_SHORT_FOR_NODE_TIMEOUT = "too short for node timeout";

	private final Environment environment;

	DistributedLockDeclarationFailureAnalyzer(Environment environment) {
		this.environment = environment;
	}

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, DistributedLockDeclarationException cause) {
		List<DistributedLockDeclarationException> all = new ArrayList<>();
		all.add(cause);
		for (Throwable suppressed : cause.getSuppressed()) {
			if (suppressed instanceof DistributedLockDeclarationException other) {
				all.add(other);
			}
		}
		List<DistributedLockDeclarationException> nodeTimeoutTooLong = all.stream()
			.filter(this::blamesTheNodeTimeout)
			.toList();
		List<String> descriptions = new ArrayList<>();
		List<String> actions = new ArrayList<>();
		if (!nodeTimeoutTooLong.isEmpty()) {
			descriptions.add(nodeTimeoutDescription(nodeTimeoutTooLong));
			actions.add(nodeTimeoutAction(nodeTimeoutTooLong));
		}
		for (DistributedLockDeclarationException failure : all) {
			if (!nodeTimeoutTooLong.contains(failure)) {
				descriptions.add("The @DistributedLock annotation on " + failure.getMethod() + " is invalid: "
						+ failure.getAttribute() + " \"" + failure.getValue() + "\" " + failure.getReason() + ".");
				actions.add(action(failure));
			}
		}
		if (descriptions.size() == 1) {
			return new FailureAnalysis(descriptions.get(0), actions.get(0), cause);
		}
		return new FailureAnalysis(
				descriptions.size() + " @DistributedLock declarations are invalid:\n\n- "
						+ String.join("\n- ", descriptions),
				"Change each of them:\n\n- " + String.join("\n- ", actions), cause);
	}

	/**
	 * Whether a lease refused for the node timeout is the node timeout's fault: it was
	 * set, and the lease would pass the default one.
	 */
	private boolean blamesTheNodeTimeout(DistributedLockDeclarationException failure) {
		if (!failure.getAttribute().equals("lease") || !failure.getReason().contains(TOO_SHORT_FOR_NODE_TIMEOUT)) {
			return false;
		}
		Optional<ConfigurationProperty> nodeTimeout = property(NODE_TIMEOUT);
		Optional<Duration> lease = duration(failure.getValue());
		return nodeTimeout.isPresent() && lease.isPresent()
				&& LockRules.leaseProblem(lease.get(), QuorumLockEngine.Builder.DEFAULT_NODE_TIMEOUT).isEmpty();
	}

	/**
	 * The node timeout a refusal names ("... too short for node timeout 250 ms ..."): the
	 * one in force, a default derived from the mode when the property is not set.
	 */
	private static Duration nodeTimeoutIn(String reason) {
		int at = reason.indexOf(TOO_SHORT_FOR_NODE_TIMEOUT) + TOO_SHORT_FOR_NODE_TIMEOUT.length();
		int end = reason.indexOf(" ms", at);
		try {
			return Duration.ofMillis(Long.parseLong(reason.substring(at, end).trim()));
		}
		catch (RuntimeException ex) {
			return QuorumLockEngine.Builder.DEFAULT_NODE_TIMEOUT;
		}
	}

	private String nodeTimeoutDescription(List<DistributedLockDeclarationException> failures) {
		ConfigurationProperty nodeTimeout = property(NODE_TIMEOUT).orElseThrow();
		StringBuilder description = new StringBuilder("Invalid quorumlock configuration: '" + NODE_TIMEOUT + "' is '"
				+ nodeTimeout.getValue() + "'" + from(nodeTimeout) + ", too long for the lease of ");
		List<String> leases = failures.stream()
			.map((failure) -> "\"" + failure.getValue() + "\" on " + failure.getMethod())
			.toList();
		description.append(String.join(", ", leases))
			.append(": the node timeout must be below a third of every lease, because a renewal every lease/3 has to "
					+ "fit in it.");
		return description.toString();
	}

	private String nodeTimeoutAction(List<DistributedLockDeclarationException> failures) {
		ConfigurationProperty nodeTimeout = property(NODE_TIMEOUT).orElseThrow();
		DistributedLockDeclarationException shortest = failures.stream()
			.min((a, b) -> duration(a.getValue()).orElseThrow().compareTo(duration(b.getValue()).orElseThrow()))
			.orElseThrow();
		Duration lease = duration(shortest.getValue()).orElseThrow();
		long below = (lease.toMillis() + 2) / 3;
		return "Lower " + NODE_TIMEOUT + where(nodeTimeout) + " below " + below
				+ "ms (a third of the shortest lease, \"" + shortest.getValue() + "\" on " + shortest.getMethod()
				+ "); or, if masters really answer that "
				+ "slowly, lengthen the 'lease' attribute of @DistributedLock on " + shortest.getMethod()
				+ " to more than three node timeouts.";
	}

	private String action(DistributedLockDeclarationException cause) {
		String method = cause.getMethod();
		String where = "Update the '" + cause.getAttribute() + "' attribute of @DistributedLock on " + method + ": ";
		String reason = cause.getReason();
		return switch (cause.getAttribute()) {
			case "key" -> reason.contains("refers to bean")
					? "Define the bean the key names, or correct the bean name in the 'key' attribute of "
							+ "@DistributedLock on " + method + "."
					: where + "write a SpEL expression over the method's parameters, such as \"#order.id\", "
							+ "\"#p0\" or \"#a0\", \"#root.method.name\", \"#root.target\" or \"@beanName.method()\"; "
							+ "a constant key in single quotes, such as \"'report-job'\".";
			case "lease", "lease (from configuration)", "waitAtMost", "holdAtMost", "holdAtLeast" ->
				durationAction(cause, where);
			case "onFailure" ->
				where + "use onFailure = THROW, or return a type that can be empty (a wrapper, Optional, "
						+ "CompletableFuture, Mono or Flux).";
			case "name" -> where + "use a name without '{' or '}'.";
			case "permits" -> where + "use permits = 1 for a plain lock, or k > 1 with mode EXCLUSIVE and a key "
					+ "that evaluates to one key.";
			case "interruptOnLoss" -> where + "remove interruptOnLoss: the asynchronous or reactive result of " + method
					+ " already ends with a LeaseLostException when the lease is lost.";
			case "modifier" -> "Make " + method + " public (or protected), non-static and non-final, "
					+ "and call it on the injected bean, not on 'this', so that the Spring proxy locks it.";
			default -> where + "return CompletionStage, CompletableFuture, Mono, Flux or a plain value.";
		};
	}

	private String durationAction(DistributedLockDeclarationException cause, String where) {
		String reason = cause.getReason();
		String method = cause.getMethod();
		if (reason.contains("is not a duration")) {
			return where + "write a duration such as \"500ms\", \"30s\", \"2m\", \"1h\" or \"PT30S\", or leave it "
					+ "empty for the configured default.";
		}
		if (reason.contains("must not be negative") || reason.contains("must be positive")) {
			return where + "write a positive duration, or leave it empty for the configured default.";
		}
		if (reason.contains("quorumlock.rejoin-delay")) {
			return "Raise quorumlock.rejoin-delay" + where(property("quorumlock.rejoin-delay").orElse(null))
					+ " to at least this lease on every instance (or remove it: the longest lease is the default), "
					+ "or shorten the lease of @DistributedLock on " + method + ".";
		}
		if (reason.contains(TOO_SHORT_FOR_NODE_TIMEOUT)) {
			Duration nodeTimeout = property(NODE_TIMEOUT).flatMap((p) -> duration(String.valueOf(p.getValue())))
				.orElseGet(() -> nodeTimeoutIn(reason));
			return where + "lengthen the lease to more than " + (3 * nodeTimeout.toMillis()) + "ms, three times "
					+ NODE_TIMEOUT + " (" + nodeTimeout.toMillis() + "ms" + where(property(NODE_TIMEOUT).orElse(null))
					+ ").";
		}
		if (reason.contains("holdAtMost") && reason.contains("shorter than lease")) {
			return reason.contains("holdAtMost from configuration")
					? where + "shorten the lease to at most the configured hold-at-most, or raise "
							+ "quorumlock.hold-at-most (or quorumlock.instances.<name>.hold-at-most) to at least the "
							+ "lease."
					: where + "write a holdAtMost not shorter than the lease, or shorten the lease.";
		}
		if (reason.contains("holdAtLeast")) {
			return where + "keep holdAtLeast within the lease, or let the lease renew (renew = true, or "
					+ "quorumlock.renew=true).";
		}
		return where + "write a duration such as \"500ms\", \"30s\", \"2m\", \"1h\" or \"PT30S\" (empty for the "
				+ "configured default); lease and holdAtMost must be positive, holdAtMost not shorter than the "
				+ "lease, holdAtLeast not longer than the lease unless it renews, and the lease longer than "
				+ "three times quorumlock.node-timeout.";
	}

	private static Optional<Duration> duration(String text) {
		try {
			return Optional.of(DurationStyle.detectAndParse(text.trim()));
		}
		catch (RuntimeException ex) {
			return Optional.empty();
		}
	}

	private Optional<ConfigurationProperty> property(String name) {
		if (this.environment == null) {
			return Optional.empty();
		}
		ConfigurationPropertyName key = ConfigurationPropertyName.of(name);
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			ConfigurationProperty found = source.getConfigurationProperty(key);
			if (found != null) {
				return Optional.of(found);
			}
		}
		return Optional.empty();
	}

	private static String from(ConfigurationProperty property) {
		return (property.getOrigin() != null) ? " (from " + property.getOrigin() + ")" : "";
	}

	private static String where(ConfigurationProperty property) {
		return (property != null && property.getOrigin() != null) ? " (in " + property.getOrigin() + ")" : "";
	}

}
