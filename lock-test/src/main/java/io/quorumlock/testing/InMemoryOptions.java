package io.quorumlock.testing;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.Environment;

import io.quorumlock.LockOptions;

/**
 * The lock options of {@code quorumlock.*} and {@code quorumlock.instances.<name>.*} read
 * from a Spring {@link Environment} with Spring Boot's binder, for
 * {@link InMemoryLockRegistry#of(Environment)}.
 */
record InMemoryOptions(LockOptions defaults, Map<String, LockOptions> instances) {

	private static final String PREFIX = "quorumlock";

	static InMemoryOptions bind(Environment environment) {
		Binder binder = Binder.get(environment);
		LockOptions defaults = options(binder, PREFIX);
		Map<String, LockOptions> instances = new LinkedHashMap<>();
		Map<String, Object> names = binder.bind(PREFIX + ".instances", Bindable.mapOf(String.class, Object.class))
			.orElse(Map.of());
		for (String name : names.keySet()) {
			instances.put(name, options(binder, PREFIX + ".instances." + name));
		}
		return new InMemoryOptions(defaults, instances);
	}

	private static LockOptions options(Binder binder, String prefix) {
		LockOptions options = LockOptions.none();
		Duration lease = duration(binder, prefix + ".lease");
		if (lease != null) {
			options = options.lease(lease);
		}
		Duration waitAtMost = duration(binder, prefix + ".wait-at-most");
		if (waitAtMost != null) {
			options = options.waitAtMost(waitAtMost);
		}
		Boolean renew = binder.bind(prefix + ".renew", Boolean.class).orElse(null);
		if (renew != null) {
			options = options.renew(renew);
		}
		Duration holdAtMost = duration(binder, prefix + ".hold-at-most");
		if (holdAtMost != null) {
			options = options.holdAtMost(holdAtMost);
		}
		Duration holdAtLeast = duration(binder, prefix + ".hold-at-least");
		if (holdAtLeast != null) {
			options = options.holdAtLeast(holdAtLeast);
		}
		return options;
	}

	private static Duration duration(Binder binder, String name) {
		String value = binder.bind(name, String.class).orElse(null);
		if (value == null || value.isBlank()) {
			return null;
		}
		try {
			return DurationStyle.detectAndParse(value.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(name + " \"" + value + "\" is not a duration such as \"30s\"", ex);
		}
	}

	InMemoryLockRegistry registry() {
		return new InMemoryLockRegistry(this.defaults, this.instances);
	}

}
