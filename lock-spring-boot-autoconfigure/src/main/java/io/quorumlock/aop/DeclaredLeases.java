package io.quorumlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

import io.quorumlock.DistributedLock;
import io.quorumlock.LockOptions;

/**
 * The effective lease of every {@code @DistributedLock} method of the beans of a factory
 * (the annotation's own lease, else its name's {@code quorumlock.instances.<name>.lease},
 * else {@code quorumlock.lease}), read from the bean definitions before the lock registry
 * is built, so that the restart guard can be derived from every lease the application
 * declares and be the same on every instance whatever each has run.
 * <p>
 * Types are read without creating beans: a method annotated only on a class that a
 * {@code @Bean} method hides behind a supertype is not seen here;
 * {@link DistributedLockMethodValidator} checks it against the guard in force once the
 * singletons exist. An annotation that does not parse is skipped here and reported by the
 * validator.
 */
public final class DeclaredLeases {

	private final List<Declared> leases;

	private DeclaredLeases(List<Declared> leases) {
		this.leases = List.copyOf(leases);
	}

	/**
	 * Read every annotated method of every bean whose type is known without creating it.
	 * @param beanFactory the bean factory
	 * @param configuredOptions the options a lock of the given name (empty for none) gets
	 * from configuration, with at least the lease set
	 * @return the declared leases
	 */
	public static DeclaredLeases scan(ListableBeanFactory beanFactory,
			Function<String, LockOptions> configuredOptions) {
		Assert.notNull(beanFactory, "'beanFactory' must not be null");
		Assert.notNull(configuredOptions, "'configuredOptions' must not be null");
		List<Declared> found = new ArrayList<>();
		for (String name : beanFactory.getBeanNamesForType(Object.class, true, false)) {
			Class<?> type = beanFactory.getType(name, false);
			if (type != null) {
				collect(ClassUtils.getUserClass(type), configuredOptions, found);
			}
		}
		found.sort(Comparator.comparing(Declared::method));
		return new DeclaredLeases(found);
	}

	private static void collect(Class<?> type, Function<String, LockOptions> configuredOptions, List<Declared> into) {
		if (!AnnotationUtils.isCandidateClass(type, DistributedLock.class)) {
			return;
		}
		Map<Method, DistributedLock> annotated = MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<DistributedLock>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, DistributedLock.class));
		annotated.forEach((method, annotation) -> {
			Optional<Duration> lease = Optional.empty();
			if (!annotation.lease().isEmpty()) {
				try {
					lease = Optional.of(LockDurations.parse(annotation.lease()));
				}
				catch (IllegalArgumentException ex) {
					return; // reported by the validator with the method and the attribute
				}
			}
			else {
				lease = configuredOptions.apply(annotation.name()).lease();
			}
			if (lease.isPresent() && !lease.get().isNegative() && !lease.get().isZero()) {
				into.add(new Declared(LockOperationParser.describe(type, method), annotation.lease(), lease.get()));
			}
		});
	}

	/**
	 * The effective lease of each annotated method found.
	 * @return the leases, in no particular order
	 */
	public List<Duration> leases() {
		return this.leases.stream().map(Declared::lease).toList();
	}

	/**
	 * Check that a restart guard covers every annotated lease.
	 * @param rejoinDelay the guard; zero (off) covers everything
	 * @throws DistributedLockDeclarationException naming the first method whose lease is
	 * longer, {@code quorumlock.rejoin-delay} and both figures
	 */
	public void checkCoveredBy(Duration rejoinDelay) {
		Assert.notNull(rejoinDelay, "'rejoinDelay' must not be null");
		if (rejoinDelay.isZero()) {
			return;
		}
		for (Declared declared : this.leases) {
			if (declared.lease().compareTo(rejoinDelay) > 0) {
				throw notCovered(declared.method(), declared.source(), declared.lease(), rejoinDelay);
			}
		}
	}

	static DistributedLockDeclarationException notCovered(String method, String source, Duration lease,
			Duration rejoinDelay) {
		String attribute = source.isEmpty() ? "lease (from configuration)" : "lease";
		String value = source.isEmpty() ? lease.toMillis() + "ms" : source;
		return new DistributedLockDeclarationException(method, attribute, value,
				"is longer than quorumlock.rejoin-delay (" + rejoinDelay.toMillis()
						+ "ms), the restart guard in force: a master restarted empty would vote again while this "
						+ "lease may still be held; raise quorumlock.rejoin-delay to at least " + lease.toMillis()
						+ "ms on every instance, or leave it unset");
	}

	/** One annotated method: its description, the annotation's lease text, the lease. */
	private record Declared(String method, String source, Duration lease) {
	}

}
