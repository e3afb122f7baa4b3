package io.quorumlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.quorumlock.shedlock.SchedulerLockDeclarationException;

/**
 * Explains a {@link SchedulerLockDeclarationException}: which {@code @SchedulerLock} (or
 * {@code @EnableSchedulerLock}) value the ShedLock provider cannot honour, and what to
 * write instead, where.
 */
class SchedulerLockDeclarationFailureAnalyzer extends AbstractFailureAnalyzer<SchedulerLockDeclarationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, SchedulerLockDeclarationException cause) {
		String description = "The " + cause.getDeclaration() + " is invalid: " + cause.getAttribute()
				+ (cause.getValue().isEmpty() ? "" : " \"" + cause.getValue() + "\"") + " " + cause.getReason() + ".";
		return new FailureAnalysis(description, action(cause), cause);
	}

	private static String action(SchedulerLockDeclarationException cause) {
		String attribute = cause.getAttribute();
		String annotation = cause.getDeclaration().startsWith("@EnableSchedulerLock") ? "@EnableSchedulerLock"
				: "@SchedulerLock";
		String on = cause.getDeclaration().substring(cause.getDeclaration().indexOf(" on ") + 4);
		String where = "Update the '" + attribute + "' attribute of " + annotation + " on " + on + ": ";
		String reason = cause.getReason();
		if (reason.startsWith("is missing")) {
			return "Add lockAtMostFor to @SchedulerLock on " + on + ", longer than the job ever runs (for example "
					+ "lockAtMostFor = \"10m\"), or set a default with @EnableSchedulerLock(defaultLockAtMostFor = "
					+ "\"10m\").";
		}
		if (reason.startsWith("cannot be resolved") || reason.startsWith("resolves to nothing")) {
			return "Define the property that " + annotation + " on " + on + " names in its '" + attribute
					+ "' attribute, with a duration such as \"10m\" or \"PT10M\", or write the duration in the "
					+ "attribute itself.";
		}
		if (reason.contains("is not a duration")) {
			return where + "write a duration such as \"30s\", \"10m\" or \"PT10M\", or a placeholder that "
					+ "resolves to one.";
		}
		if (reason.startsWith("must be positive")) {
			return where + "write a positive duration, longer than the job ever runs.";
		}
		if (reason.startsWith("must not be negative")) {
			return where + "write zero (release at once) or a positive duration.";
		}
		if (reason.contains("is longer than")) {
			return where + "keep the minimum hold within lockAtMostFor: shorten " + attribute
					+ ", or lengthen lockAtMostFor.";
		}
		if (reason.contains("too short for node timeout")) {
			return where + "lengthen it to more than three times quorumlock.node-timeout, or lower "
					+ "quorumlock.node-timeout; a lockAtMostFor longer than the lease of the 'shedlock' locks "
					+ "(quorumlock.instances.shedlock.lease) is a renewed lease, which any length above the lease "
					+ "passes.";
		}
		return where + "write a duration the provider can honour: lockAtMostFor positive and longer than three "
				+ "times quorumlock.node-timeout, lockAtLeastFor between zero and lockAtMostFor.";
	}

}
