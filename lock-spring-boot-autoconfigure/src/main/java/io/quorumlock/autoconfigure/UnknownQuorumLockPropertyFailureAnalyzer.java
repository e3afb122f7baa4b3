package io.quorumlock.autoconfigure;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Explains a property under {@code quorumlock.} that no setting has (a typo such as
 * {@code quorumlock.node} for {@code quorumlock.nodes}), with the nearest valid name.
 * Runs before Boot's own analysis of unbound properties, which names no alternative.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class UnknownQuorumLockPropertyFailureAnalyzer
		extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException> {

	private static final String PREFIX = "quorumlock.";

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
		List<ConfigurationProperty> unknown = cause.getUnboundProperties()
			.stream()
			.filter((property) -> property.getName().toString().startsWith(PREFIX))
			.sorted(Comparator.comparing((property) -> property.getName().toString()))
			.toList();
		if (unknown.isEmpty()) {
			return null;
		}
		StringBuilder description = new StringBuilder("Unknown quorumlock configuration:");
		for (ConfigurationProperty property : unknown) {
			description.append("\n\t'").append(property.getName()).append("'");
			if (property.getOrigin() != null) {
				description.append(" (from ").append(property.getOrigin()).append(")");
			}
			description.append(" is not a quorumlock property; did you mean '")
				.append(nearest(property.getName().toString()))
				.append("'?");
		}
		description.append("\n\nquorumlock stops here rather than ignore it: a misspelt setting would silently "
				+ "run with its default (a misspelt quorumlock.nodes runs single mode on spring.data.redis).");
		return new FailureAnalysis(description.toString(), "Correct the property name; the valid names are: "
				+ names().stream().collect(Collectors.joining(", ")) + ".", cause);
	}

	/** The valid name closest to {@code name}, list indexes and map keys aside. */
	static String nearest(String name) {
		String normalized = normalize(name);
		String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (String candidate : names()) {
			int distance = distance(normalized, candidate);
			if (distance < bestDistance) {
				best = candidate;
				bestDistance = distance;
			}
		}
		return best;
	}

	/** Drop list indexes; write the map key after {@code instances} as {@code <name>}. */
	private static String normalize(String name) {
		String plain = name.replaceAll("\\[[^]]*]", "");
		return plain.replaceFirst("^quorumlock\\.instances\\.[^.]+", "quorumlock.instances.<name>");
	}

	/** Every property name, read from {@link QuorumLockProperties} itself. */
	static List<String> names() {
		List<String> names = new ArrayList<>();
		collect(QuorumLockProperties.class, "quorumlock", names);
		return names;
	}

	private static void collect(Class<?> type, String prefix, List<String> into) {
		for (Field field : type.getDeclaredFields()) {
			if (Modifier.isStatic(field.getModifiers())) {
				continue;
			}
			String name = prefix + "." + kebab(field.getName());
			Class<?> fieldType = field.getType();
			if (Map.class.isAssignableFrom(fieldType)) {
				collect(Instance.class, name + ".<name>", into);
			}
			else if (fieldType.getPackage() == QuorumLockProperties.class.getPackage() && fieldType != RetryDelay.class
					&& fieldType != Node.class) {
				collect(fieldType, name, into);
			}
			else {
				into.add(name);
				if (fieldType == RetryDelay.class) {
					collect(fieldType, name, into);
				}
				if (List.class.isAssignableFrom(fieldType)) {
					collect(Node.class, name, into);
				}
			}
		}
	}

	private static String kebab(String camel) {
		return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
	}

	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int cost = (a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1;
				current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

}
