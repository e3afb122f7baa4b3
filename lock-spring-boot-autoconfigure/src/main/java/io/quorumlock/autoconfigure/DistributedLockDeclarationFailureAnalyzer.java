package io.quorumlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.quorumlock.aop.DistributedLockDeclarationException;

/**
 * Explains a {@link DistributedLockDeclarationException}: which method, which attribute,
 * and how to write it.
 */
class DistributedLockDeclarationFailureAnalyzer extends AbstractFailureAnalyzer<DistributedLockDeclarationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, DistributedLockDeclarationException cause) {
		String description = "The @DistributedLock annotation on " + cause.getMethod() + " is invalid: "
				+ cause.getAttribute() + " \"" + cause.getValue() + "\" " + cause.getReason() + ".";
		return new FailureAnalysis(description, action(cause), cause);
	}

	private static String action(DistributedLockDeclarationException cause) {
		String where = "Update the '" + cause.getAttribute() + "' attribute of @DistributedLock on " + cause.getMethod()
				+ ": ";
		return switch (cause.getAttribute()) {
			case "key" -> where + "write a SpEL expression over the method's parameters, such as \"#order.id\", "
					+ "\"#p0\" or \"#a0\", \"#root.method.name\", \"#root.target\" or \"@beanName.method()\".";
			case "lease", "waitAtMost", "holdAtMost", "holdAtLeast" ->
				where + "write a duration such as \"500ms\", \"30s\", \"2m\", \"1h\" or \"PT30S\" (empty for the "
						+ "configured default); lease and holdAtMost must be positive, holdAtMost not shorter than the "
						+ "lease, holdAtLeast not longer than the lease unless it renews, and the lease longer than "
						+ "three times quorumlock.node-timeout.";
			case "onFailure" ->
				where + "use onFailure = THROW, or return a type that can be empty (a wrapper, Optional, "
						+ "CompletableFuture, Mono or Flux).";
			case "name" -> where + "use a name without '{' or '}'.";
			case "modifier" -> "Make " + cause.getMethod() + " public (or protected), non-static and non-final, "
					+ "and call it on the injected bean, not on 'this', so that the Spring proxy locks it.";
			default -> where + "return CompletionStage, CompletableFuture, Mono, Flux or a plain value.";
		};
	}

}
