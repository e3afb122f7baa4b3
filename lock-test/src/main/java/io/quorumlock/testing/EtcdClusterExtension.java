package io.quorumlock.testing;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Optional;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ExtensionContext.Store.CloseableResource;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The extension behind {@link EtcdCluster}: starts the members once per annotated class
 * (a {@code @Nested} class shares its enclosing class's), brings them back to running
 * before each test, injects them into fields and parameters of type {@link EtcdMembers},
 * and stops them when the annotated class's tests are done. Use it through
 * {@link EtcdCluster}.
 */
public final class EtcdClusterExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

	private static final Namespace NAMESPACE = Namespace.create(EtcdClusterExtension.class);

	/** Created by JUnit for {@link EtcdCluster}. */
	public EtcdClusterExtension() {
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		inject(context.getRequiredTestClass(), null, members(context));
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		EtcdMembers members = members(context);
		members.reset();
		Optional<Class<?>> annotated = annotatedClass(context.getRequiredTestClass());
		for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
			if (annotatedClass(instance.getClass()).equals(annotated)) {
				inject(instance.getClass(), instance, members);
			}
		}
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == EtcdMembers.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return members(extensionContext);
	}

	private static EtcdMembers members(ExtensionContext context) {
		Class<?> annotated = annotatedClass(context.getRequiredTestClass())
			.orElseThrow(() -> new ExtensionConfigurationException("EtcdClusterExtension needs @EtcdCluster on "
					+ context.getRequiredTestClass().getName() + " or an enclosing class"));
		int count = annotated.getAnnotation(EtcdCluster.class).members();
		if (count < 1) {
			throw new ExtensionConfigurationException(
					"@EtcdCluster(members = " + count + ") on " + annotated.getName() + ": needs at least 1 member");
		}
		ExtensionContext owner = contextOf(context, annotated);
		return owner.getStore(NAMESPACE)
			.getOrComputeIfAbsent(annotated, (key) -> new Started(EtcdMembers.start(count)), Started.class)
			.members();
	}

	private static Optional<Class<?>> annotatedClass(Class<?> testClass) {
		for (Class<?> type = testClass; type != null; type = type.getEnclosingClass()) {
			if (type.isAnnotationPresent(EtcdCluster.class)) {
				return Optional.of(type);
			}
		}
		return Optional.empty();
	}

	private static ExtensionContext contextOf(ExtensionContext context, Class<?> annotated) {
		for (ExtensionContext current = context; current != null; current = current.getParent().orElse(null)) {
			if (current.getTestClass().orElse(null) == annotated && current.getTestMethod().isEmpty()) {
				return current;
			}
		}
		return context;
	}

	private static void inject(Class<?> type, Object instance, EtcdMembers members) {
		for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
			for (Field field : current.getDeclaredFields()) {
				if (field.getType() != EtcdMembers.class
						|| Modifier.isStatic(field.getModifiers()) != (instance == null)
						|| Modifier.isFinal(field.getModifiers())) {
					continue;
				}
				try {
					field.setAccessible(true);
					if (field.get(instance) == null) {
						field.set(instance, members);
					}
				}
				catch (IllegalAccessException | RuntimeException ex) {
					throw new ExtensionConfigurationException("@EtcdCluster cannot inject " + field, ex);
				}
			}
		}
	}

	/** The running members, stopped when the store that holds them closes. */
	@SuppressWarnings("deprecation")
	private record Started(EtcdMembers members) implements CloseableResource, AutoCloseable {

		@Override
		public void close() {
			this.members.close();
		}

	}

}
