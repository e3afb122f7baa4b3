package io.quorumlock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

import io.quorumlock.DistributedLock;
import io.quorumlock.LockOptions;
import io.quorumlock.LockRules;

/**
 * Checks every {@code @DistributedLock} method of every bean once the singletons are
 * created, so that a bad declaration stops the start-up instead of failing in production:
 * the method is not private, static or final (a proxy could never lock it); the key
 * parses, refers only to parameters, existing beans and root properties (a bare
 * {@code report-job} is refused with a hint to quote it); durations parse, are not
 * negative, the lease is positive and longer than three node timeouts (a renewal every
 * lease/3 must fit in it); {@code holdAtMost} is not shorter than the effective lease;
 * {@code holdAtLeast} is not longer than an effective lease that is not renewed;
 * {@code onFailure = SKIP} has an empty result to return; and the effective lease is
 * covered by the registry's restart guard in force ({@code quorumlock.rejoin-delay}), so
 * no call is refused for it later. Every bad declaration is reported at once: the first
 * is thrown as a {@link DistributedLockDeclarationException}, the others suppressed in
 * it.
 */
public class DistributedLockMethodValidator implements SmartInitializingSingleton, BeanFactoryAware {

	/** The registry's node timeout, read when a lease is checked. */
	private final Supplier<Duration> nodeTimeout;

	private final Function<String, LockOptions> configuredOptions;

	private final Supplier<Duration> restartGuard;

	private final LockOperationParser parser = new LockOperationParser(new LockKeyEvaluator());

	private ListableBeanFactory beanFactory;

	/** The restart guard read by {@link #afterSingletonsInstantiated()}; zero before. */
	private Duration guardInForce = Duration.ZERO;

	/**
	 * Create a validator.
	 * @param nodeTimeout the registry's node timeout
	 * @param configuredOptions the options a lock of the given name (empty for none) gets
	 * from configuration, with at least the lease set
	 */
	public DistributedLockMethodValidator(Duration nodeTimeout, Function<String, LockOptions> configuredOptions) {
		this(nodeTimeout, configuredOptions, () -> Duration.ZERO);
	}

	/**
	 * Create a validator that also checks every effective lease against the restart guard
	 * in force.
	 * @param nodeTimeout the registry's node timeout
	 * @param configuredOptions the options a lock of the given name (empty for none) gets
	 * from configuration, with at least the lease set
	 * @param restartGuard the registry's restart guard in force, read once the singletons
	 * exist; zero when there is none
	 */
	public DistributedLockMethodValidator(Duration nodeTimeout, Function<String, LockOptions> configuredOptions,
			Supplier<Duration> restartGuard) {
		this(constant(nodeTimeout), configuredOptions, restartGuard);
	}

	/**
	 * Create a validator that reads the registry's node timeout and restart guard once
	 * the singletons exist (the node timeout of a registry built with a default that
	 * depends on the mode is known only then).
	 * @param nodeTimeout the registry's node timeout, read once the singletons exist
	 * @param configuredOptions the options a lock of the given name (empty for none) gets
	 * from configuration, with at least the lease set
	 * @param restartGuard the registry's restart guard in force, read once the singletons
	 * exist; zero when there is none
	 */
	public DistributedLockMethodValidator(Supplier<Duration> nodeTimeout,
			Function<String, LockOptions> configuredOptions, Supplier<Duration> restartGuard) {
		Assert.notNull(nodeTimeout, "'nodeTimeout' must not be null");
		Assert.notNull(configuredOptions, "'configuredOptions' must not be null");
		Assert.notNull(restartGuard, "'restartGuard' must not be null");
		this.nodeTimeout = nodeTimeout;
		this.configuredOptions = configuredOptions;
		this.restartGuard = restartGuard;
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
	}

	/**
	 * Check every annotated method of every bean.
	 * @throws DistributedLockDeclarationException for the first bad declaration, with
	 * every other bad declaration of every bean as a suppressed exception, so that one
	 * start-up names them all
	 */
	@Override
	public void afterSingletonsInstantiated() {
		this.guardInForce = this.restartGuard.get();
		List<DistributedLockDeclarationException> failures = new ArrayList<>();
		for (String name : this.beanFactory.getBeanNamesForType(Object.class, true, false)) {
			Class<?> type = this.beanFactory.getType(name, false);
			if (type != null) {
				validate(ClassUtils.getUserClass(type), failures);
			}
		}
		throwAll(failures);
	}

	/**
	 * Check the annotated methods of one class.
	 * @param type the class
	 * @throws DistributedLockDeclarationException for the first bad declaration, with the
	 * others of the class as suppressed exceptions
	 */
	public void validate(Class<?> type) {
		List<DistributedLockDeclarationException> failures = new ArrayList<>();
		validate(type, failures);
		throwAll(failures);
	}

	private void validate(Class<?> type, List<DistributedLockDeclarationException> failures) {
		if (!AnnotationUtils.isCandidateClass(type, DistributedLock.class)) {
			return;
		}
		Map<Method, DistributedLock> annotated = MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<DistributedLock>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, DistributedLock.class));
		annotated.keySet().stream().sorted(Comparator.comparing(Method::toGenericString)).forEach((method) -> {
			try {
				validate(method, type);
			}
			catch (DistributedLockDeclarationException ex) {
				if (failures.stream().noneMatch((known) -> known.getMessage().equals(ex.getMessage()))) {
					failures.add(ex);
				}
			}
		});
	}

	private static void throwAll(List<DistributedLockDeclarationException> failures) {
		if (failures.isEmpty()) {
			return;
		}
		DistributedLockDeclarationException first = failures.get(0);
		failures.subList(1, failures.size()).forEach(first::addSuppressed);
		throw first;
	}

	private void validate(Method method, Class<?> type) {
		LockOperation operation = this.parser.parse(method, type);
		if (operation == null) {
			return;
		}
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
			// never intercepted: every call would run unlocked, so stop the start-up
			throw new DistributedLockDeclarationException(operation.description(), "modifier",
					Modifier.isPrivate(modifiers) ? "private" : Modifier.isStatic(modifiers) ? "static" : "final",
					"makes the method impossible to lock: a Spring proxy never intercepts it, so every call would "
							+ "run without the lock");
		}
		checkBeans(operation);
		checkTimings(operation, method);
	}

	private void checkBeans(LockOperation operation) {
		for (String bean : operation.beanReferences()) {
			if (!this.beanFactory.containsBean(bean)) {
				throw new DistributedLockDeclarationException(operation.description(), "key", operation.keySource(),
						"refers to bean '" + bean + "', which does not exist");
			}
		}
	}

	private void checkTimings(LockOperation operation, Method method) {
		DistributedLock annotation = LockOperationParser.findAnnotation(method, operation.targetClass());
		LockOptions own = operation.options();
		LockOptions effective = own.orElse(this.configuredOptions.apply(operation.name()));
		Optional<Duration> lease = effective.lease();
		if (lease.isEmpty()) {
			return;
		}
		Optional<String> leaseProblem = LockRules.leaseProblem(lease.get(), this.nodeTimeout.get());
		if (own.lease().isPresent() && leaseProblem.isPresent()) {
			throw new DistributedLockDeclarationException(operation.description(), "lease", annotation.lease(),
					"is refused: " + leaseProblem.get());
		}
		Duration guard = this.guardInForce;
		if (!guard.isNegative() && !guard.isZero() && lease.get().compareTo(guard) > 0) {
			throw DeclaredLeases.notCovered(operation.description(), annotation.lease(), lease.get(), guard);
		}
		Optional<Duration> holdAtMost = effective.holdAtMost();
		Optional<String> holdProblem = holdAtMost.flatMap((hold) -> LockRules.holdAtMostProblem(hold, lease.get()));
		if (holdProblem.isPresent()) {
			String leaseFrom = own.lease().isPresent() ? "the annotation" : "configuration";
			if (own.holdAtMost().isPresent()) {
				throw new DistributedLockDeclarationException(operation.description(), "holdAtMost",
						annotation.holdAtMost(),
						"is refused: " + holdProblem.get() + " (lease from " + leaseFrom + ")");
			}
			throw new DistributedLockDeclarationException(operation.description(), "lease", annotation.lease(),
					"is refused: " + holdProblem.get() + " (holdAtMost from configuration)");
		}
		checkHoldAtLeast(operation, annotation, own, effective, lease.get());
	}

	/**
	 * A minimum hold longer than a lease that is not renewed would outlive the key.
	 */
	private void checkHoldAtLeast(LockOperation operation, DistributedLock annotation, LockOptions own,
			LockOptions effective, Duration lease) {
		Optional<Duration> holdAtLeast = effective.holdAtLeast();
		boolean renew = effective.renew().orElse(true);
		Optional<String> problem = holdAtLeast.flatMap((hold) -> LockRules.holdAtLeastProblem(hold, lease, renew));
		if (problem.isEmpty()) {
			return;
		}
		String leaseFrom = own.lease().isPresent() ? "the annotation" : "configuration";
		String renewFrom = own.renew().isPresent() ? "renew = false" : "renewal off in configuration";
		if (own.holdAtLeast().isPresent()) {
			throw new DistributedLockDeclarationException(operation.description(), "holdAtLeast",
					annotation.holdAtLeast(),
					"is refused: " + problem.get() + " (lease from " + leaseFrom + ", " + renewFrom + ")");
		}
		throw new DistributedLockDeclarationException(operation.description(), "lease", annotation.lease(),
				"is refused: " + problem.get() + " (holdAtLeast from configuration, " + renewFrom + ")");
	}

}
