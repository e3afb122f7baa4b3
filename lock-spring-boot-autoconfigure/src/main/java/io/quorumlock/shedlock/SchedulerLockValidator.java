package io.quorumlock.shedlock;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringValueResolver;

import io.quorumlock.LockRules;

/**
 * Checks every {@code @SchedulerLock} method of every bean, and the defaults of
 * {@code @EnableSchedulerLock}, once the singletons are created, so that a value the
 * {@link QuorumLockProvider} cannot honour stops the start-up instead of failing a
 * scheduled run: {@code ${...}} placeholders and expressions resolve; the durations parse
 * as ShedLock reads them ({@code 10m}, {@code PT10M}, {@code 600000} for milliseconds);
 * {@code lockAtMostFor} is positive; {@code lockAtLeastFor} is not negative nor longer
 * than {@code lockAtMostFor}; and a {@code lockAtMostFor} not longer than the provider's
 * lease, which becomes the lease itself, is longer than three node timeouts. The first
 * bad value is thrown as a {@link SchedulerLockDeclarationException}.
 */
public class SchedulerLockValidator implements SmartInitializingSingleton, BeanFactoryAware {

	private final Supplier<QuorumLockProvider> providers;

	/** The registry's node timeout, read when a lease is checked. */
	private final Supplier<Duration> nodeTimeout;

	/** The provider read by {@link #afterSingletonsInstantiated()}. */
	private QuorumLockProvider provider;

	private ListableBeanFactory beanFactory;

	private StringValueResolver resolver;

	/**
	 * Create a validator.
	 * @param provider the provider that will lock the jobs, read once the singletons
	 * exist; null when the jobs lock on another provider, and then nothing is checked
	 * @param nodeTimeout the registry's node timeout
	 */
	public SchedulerLockValidator(Supplier<QuorumLockProvider> provider, Duration nodeTimeout) {
		this(provider, constant(nodeTimeout));
	}

	/**
	 * Create a validator that reads the registry's node timeout once the singletons exist
	 * (the node timeout of a registry built with a default that depends on the mode is
	 * known only then).
	 * @param provider the provider that will lock the jobs, read once the singletons
	 * exist; null when the jobs lock on another provider, and then nothing is checked
	 * @param nodeTimeout the registry's node timeout, read once the singletons exist
	 */
	public SchedulerLockValidator(Supplier<QuorumLockProvider> provider, Supplier<Duration> nodeTimeout) {
		Assert.notNull(provider, "'provider' must not be null");
		Assert.notNull(nodeTimeout, "'nodeTimeout' must not be null");
		this.providers = provider;
		this.nodeTimeout = nodeTimeout;
	}

	private static Supplier<Duration> constant(Duration nodeTimeout) {
		Assert.notNull(nodeTimeout, "'nodeTimeout' must not be null");
		return () -> nodeTimeout;
	}

	/**
	 * Bean factory whose beans are checked.
	 * @param beanFactory a {@link ListableBeanFactory}
	 */
	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		Assert.isInstanceOf(ListableBeanFactory.class, beanFactory);
		this.beanFactory = (ListableBeanFactory) beanFactory;
		this.resolver = (beanFactory instanceof ConfigurableBeanFactory configurable)
				? new EmbeddedValueResolver(configurable) : (value) -> value;
	}

	/**
	 * Check the defaults and every annotated method of every bean.
	 * @throws SchedulerLockDeclarationException for the first bad value
	 */
	@Override
	public void afterSingletonsInstantiated() {
		this.provider = this.providers.get();
		if (this.provider == null) {
			return;
		}
		Defaults defaults = defaults();
		for (String name : this.beanFactory.getBeanNamesForType(Object.class, true, false)) {
			Class<?> type = this.beanFactory.getType(name, false);
			if (type != null) {
				validate(ClassUtils.getUserClass(type), defaults);
			}
		}
	}

	/** The defaults of {@code @EnableSchedulerLock}, checked; none without it. */
	private Defaults defaults() {
		for (String name : this.beanFactory.getBeanNamesForAnnotation(EnableSchedulerLock.class)) {
			EnableSchedulerLock enable = this.beanFactory.findAnnotationOnBean(name, EnableSchedulerLock.class, false);
			Class<?> type = this.beanFactory.getType(name, false);
			if (enable == null || type == null) {
				continue;
			}
			String where = "@EnableSchedulerLock on " + ClassUtils.getUserClass(type).getSimpleName();
			Value atMost = new Value(where, "defaultLockAtMostFor", enable.defaultLockAtMostFor());
			Value atLeast = new Value(where, "defaultLockAtLeastFor", enable.defaultLockAtLeastFor());
			check(atMost, atLeast);
			return new Defaults(atMost, atLeast);
		}
		return new Defaults(null, null);
	}

	private void validate(Class<?> type, Defaults defaults) {
		if (!AnnotationUtils.isCandidateClass(type, SchedulerLock.class)) {
			return;
		}
		Map<Method, SchedulerLock> annotated = MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<SchedulerLock>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, SchedulerLock.class));
		annotated.entrySet()
			.stream()
			.sorted(Comparator.comparing((entry) -> entry.getKey().toGenericString()))
			.forEach((entry) -> validate(entry.getKey(), type, entry.getValue(), defaults));
	}

	private void validate(Method method, Class<?> type, SchedulerLock lock, Defaults defaults) {
		String where = "@SchedulerLock on " + type.getSimpleName() + "." + method.getName() + "()";
		Value atMost = lock.lockAtMostFor().isEmpty() ? defaults.atMost()
				: new Value(where, "lockAtMostFor", lock.lockAtMostFor());
		Value atLeast = lock.lockAtLeastFor().isEmpty() ? defaults.atLeast()
				: new Value(where, "lockAtLeastFor", lock.lockAtLeastFor());
		if (atMost == null) {
			// ShedLock itself refuses a lock without lockAtMostFor
			throw new SchedulerLockDeclarationException(where, "lockAtMostFor", "",
					"is missing, and no @EnableSchedulerLock(defaultLockAtMostFor) was found");
		}
		check(atMost, atLeast);
	}

	private void check(Value atMost, Value atLeast) {
		Duration most = atMost.parse();
		if (most.isNegative() || most.isZero()) {
			throw atMost.refused("must be positive, was " + most.toMillis() + " ms");
		}
		Duration least = (atLeast != null) ? atLeast.parse() : Duration.ZERO;
		if (least.isNegative()) {
			throw atLeast.refused("must not be negative, was " + least.toMillis() + " ms");
		}
		if (least.compareTo(most) > 0) {
			throw atLeast.refused("is refused: " + least.toMillis() + " ms is longer than " + atMost.attribute() + " "
					+ most.toMillis() + " ms (" + atMost.where() + ")");
		}
		if (most.compareTo(this.provider.getLease()) <= 0) {
			Optional<String> problem = LockRules.leaseProblem(most, this.nodeTimeout.get());
			if (problem.isPresent()) {
				throw atMost.refused("is refused: it is not longer than the lease of '" + this.provider.getName()
						+ "' locks, " + this.provider.getLease().toMillis() + " ms, so it is the lease itself, and "
						+ problem.get());
			}
		}
	}

	private record Defaults(Value atMost, Value atLeast) {
	}

	/** A duration as written, where it is written. */
	private final class Value {

		private final String where;

		private final String attribute;

		private final String written;

		Value(String where, String attribute, String written) {
			this.where = where;
			this.attribute = attribute;
			this.written = written;
		}

		String where() {
			return this.where;
		}

		String attribute() {
			return this.attribute;
		}

		Duration parse() {
			String resolved;
			try {
				resolved = SchedulerLockValidator.this.resolver.resolveStringValue(this.written);
			}
			catch (RuntimeException ex) {
				throw refused("cannot be resolved: " + ex.getMessage());
			}
			if (resolved == null || resolved.isBlank()) {
				throw refused("resolves to nothing");
			}
			try {
				return DurationStyle.detectAndParse(resolved.trim());
			}
			catch (RuntimeException ex) {
				String shown = resolved.equals(this.written) ? "" : " (resolved to \"" + resolved + "\")";
				throw refused(shown.isEmpty() ? "is not a duration such as \"10m\" or \"PT10M\""
						: "is not a duration" + shown + "; write one such as \"10m\" or \"PT10M\"");
			}
		}

		SchedulerLockDeclarationException refused(String reason) {
			return new SchedulerLockDeclarationException(this.where, this.attribute, this.written, reason);
		}

	}

}
