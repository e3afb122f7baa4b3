package io.quorumlock.autoconfigure;

import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.springframework.beans.BeanUtils;

import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Explains a property under {@code quorumlock.} that no setting has (a typo such as
 * {@code quorumlock.node} for {@code quorumlock.nodes}), with the nearest valid name; and
 * every other such property set in the environment, so that one start-up names them all
 * (the binder reports the unknown names of one nested object only). Runs before Boot's
 * own analysis of unbound properties, which names no alternative.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class UnknownQuorumLockPropertyFailureAnalyzer
		extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException> {

	private static final String PREFIX = "quorumlock.";

	/** How a list index is written in the names. */
	private static final String INDEX = "[i]";

	/** How a map key is written in the names. */
	private static final String KEY = "<name>";

	private final Environment environment;

	/**
	 * Create the analyzer.
	 * @param environment the environment, searched for every other unknown
	 * {@code quorumlock.*} property; may be null (then only those of the failure)
	 */
	UnknownQuorumLockPropertyFailureAnalyzer(Environment environment) {
		this.environment = environment;
	}

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
		Map<String, ConfigurationProperty> byName = new TreeMap<>();
		cause.getUnboundProperties()
			.stream()
			.filter((property) -> property.getName().toString().startsWith(PREFIX))
			.forEach((property) -> byName.put(property.getName().toString(), property));
		if (byName.isEmpty()) {
			return null;
		}
		// the binder stops at the first nested object with an unknown name: the others
		// are found in the environment, so that one start-up names them all
		unknownInEnvironment().forEach((property) -> byName.putIfAbsent(property.getName().toString(), property));
		StringBuilder description = new StringBuilder("Unknown quorumlock configuration:");
		for (ConfigurationProperty property : byName.values()) {
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
		String rename = byName.values()
			.stream()
			.map((property) -> "'" + property.getName() + "' to '" + nearest(property.getName().toString()) + "'"
					+ ((property.getOrigin() != null) ? " in " + property.getOrigin() : ""))
			.collect(Collectors.joining("; "));
		return new FailureAnalysis(description.toString(), "Rename " + rename + " (or remove it). The valid names are: "
				+ names().stream().collect(Collectors.joining(", ")) + ".", cause);
	}

	/**
	 * Every {@code quorumlock.*} property set in the environment that no setting has. A
	 * name is known when, list indexes, map keys and dashes aside (an environment
	 * variable has none), it is a valid name, the start of one, or an element of a list
	 * or map of plain values.
	 */
	List<ConfigurationProperty> unknownInEnvironment() {
		if (this.environment == null) {
			return List.of();
		}
		ConfigurationPropertyName root = ConfigurationPropertyName.of("quorumlock");
		List<ConfigurationProperty> unknown = new ArrayList<>();
		try {
			for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
				if (!(source instanceof IterableConfigurationPropertySource iterable) || isSystem(source)) {
					continue;
				}
				iterable.filter(root::isAncestorOf).forEach((name) -> {
					boolean isKnown = isKnown(name.toString());
					ConfigurationProperty property = iterable.getConfigurationProperty(name);
					if (!isKnown && property != null) {
						unknown.add(property);
					}
				});
			}
		}
		catch (RuntimeException ex) {
			// a courtesy beyond the binder's own report: never hide that report
		}
		return unknown;
	}

	/**
	 * Whether a source is one the binder leaves out of its unknown names, as Boot's
	 * {@code UnboundElementsSourceFilter} does: system properties and environment
	 * variables may hold anything.
	 */
	private static boolean isSystem(ConfigurationPropertySource source) {
		return source.getUnderlyingSource() instanceof PropertySource<?> underlying
				&& (StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME.equals(underlying.getName())
						|| StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(underlying.getName()));
	}

	/**
	 * Whether a name is bound: list indexes, map keys and dashes aside (an environment
	 * variable has none), it is a valid name, the start of one
	 * ({@code quorumlock.nodes[0]} written as a URI), or an element of a list or map of
	 * plain values.
	 * @param name a name under {@code quorumlock.}
	 */
	static boolean isKnown(String name) {
		String typed = loose(normalize(name));
		return names().stream()
			.map(UnknownQuorumLockPropertyFailureAnalyzer::loose)
			.anyMatch((valid) -> valid.equals(typed) || valid.startsWith(typed + ".") || valid.startsWith(typed + INDEX)
					|| typed.startsWith(valid + INDEX) || typed.startsWith(valid + "."));
	}

	/**
	 * A name compared without dashes or case and with every index as {@code [i]} (an
	 * environment variable's {@code _0_} included).
	 */
	private static String loose(String name) {
		return name.replaceAll("\\.[0-9]+(?=\\.|$)", INDEX).replace("-", "").toLowerCase(Locale.ROOT);
	}

	/**
	 * The valid name closest to {@code name}, list indexes and map keys aside, written
	 * with the index or key {@code name} used (so {@code quorumlock.nodes[1].usrname}
	 * gives {@code quorumlock.nodes[1].username}).
	 */
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
		return (best != null) ? denormalize(best, name) : null;
	}

	/**
	 * Write list indexes as {@code [i]} and the map key after {@code instances} as
	 * {@code <name>}.
	 */
	private static String normalize(String name) {
		String plain = name.replaceAll("\\[[^]]*]", INDEX);
		return plain.replaceFirst("^quorumlock\\.instances\\.[^.\\[]+", "quorumlock.instances." + KEY);
	}

	/** Put the index and the map key of {@code typed} back into {@code candidate}. */
	private static String denormalize(String candidate, String typed) {
		Matcher index = Pattern.compile("\\[[^]]*]").matcher(typed);
		String result = candidate;
		if (index.find() && result.contains(INDEX)) {
			result = result.replace(INDEX, index.group());
		}
		Matcher key = Pattern.compile("^quorumlock\\.instances\\.([^.\\[]+)").matcher(typed);
		if (key.find() && result.contains(KEY)) {
			result = result.replace(KEY, key.group(1));
		}
		return result;
	}

	/**
	 * Every name the binder accepts, read from {@link QuorumLockProperties} and the types
	 * it holds, inherited properties included: a list of strings is one name
	 * ({@code quorumlock.fresh-master-run-ids}), a list of objects its name and its
	 * entries' ({@code quorumlock.nodes[i].uri}), a map of objects its entries'
	 * ({@code quorumlock.instances.<name>.lease}), and {@code retry-delay} both itself
	 * (written {@code min..max}) and its nested {@code min} and {@code max}.
	 */
	static List<String> names() {
		List<String> names = new ArrayList<>();
		collect(QuorumLockProperties.class, "quorumlock", names);
		return names;
	}

	private static void collect(Class<?> type, String prefix, List<String> into) {
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			Method getter = property.getReadMethod();
			if (getter == null || getter.getDeclaringClass() == Object.class) {
				continue;
			}
			String name = prefix + "." + kebab(property.getName());
			Class<?> valueType = getter.getReturnType();
			ResolvableType resolved = ResolvableType.forMethodReturnType(getter);
			if (Map.class.isAssignableFrom(valueType)) {
				Class<?> entry = resolved.asMap().resolveGeneric(1);
				if (isNested(entry)) {
					collect(entry, name + "." + KEY, into);
				}
				else {
					into.add(name);
				}
			}
			else if (Collection.class.isAssignableFrom(valueType)) {
				into.add(name);
				Class<?> element = resolved.asCollection().resolveGeneric(0);
				if (isNested(element)) {
					collect(element, name + INDEX, into);
				}
			}
			else if (isNested(valueType)) {
				if (valueType == RetryDelay.class) {
					into.add(name); // also written as one value, 'min..max'
				}
				collect(valueType, name, into);
			}
			else if (property.getWriteMethod() != null) {
				into.add(name);
			}
		}
	}

	/** A type of this package whose properties are bound one by one. */
	private static boolean isNested(Class<?> type) {
		return type != null && type.getPackage() == QuorumLockProperties.class.getPackage() && !type.isEnum();
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
