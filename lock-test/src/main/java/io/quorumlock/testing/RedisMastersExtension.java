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
 * The extension behind {@link RedisMasters}: starts the masters once per annotated class
 * (a {@code @Nested} class shares its enclosing class's), resets them before each test,
 * injects them into fields and parameters of type {@link RedisServers}, and stops them
 * when the annotated class's tests are done. Use it through {@link RedisMasters}.
 */
public final class RedisMastersExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

	private static final Namespace NAMESPACE = Namespace.create(RedisMastersExtension.class);

	/** Created by JUnit for {@link RedisMasters}. */
	public RedisMastersExtension() {
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		RedisServers masters = masters(context);
		inject(context.getRequiredTestClass(), null, masters);
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		RedisServers masters = masters(context);
		masters.reset();
		Optional<Class<?>> annotated = annotatedClass(context.getRequiredTestClass());
		for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
			// an enclosing instance under masters of its own keeps them
			if (annotatedClass(instance.getClass()).equals(annotated)) {
				inject(instance.getClass(), instance, masters);
			}
		}
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == RedisServers.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return masters(extensionContext);
	}

	/**
	 * The masters of the nearest class carrying {@link RedisMasters}, started on first
	 * use and stopped when that class's context closes.
	 */
	private static RedisServers masters(ExtensionContext context) {
		Class<?> annotated = annotatedClass(context.getRequiredTestClass())
			.orElseThrow(() -> new ExtensionConfigurationException("RedisMastersExtension needs @RedisMasters on "
					+ context.getRequiredTestClass().getName() + " or an enclosing class"));
		int count = annotated.getAnnotation(RedisMasters.class).value();
		if (count < 1) {
			throw new ExtensionConfigurationException(
					"@RedisMasters(" + count + ") on " + annotated.getName() + ": needs at least 1 master");
		}
		ExtensionContext owner = contextOf(context, annotated);
		return owner.getStore(NAMESPACE)
			.getOrComputeIfAbsent(annotated, (key) -> new Started(RedisServers.start(count).start()), Started.class)
			.masters();
	}

	private static Optional<Class<?>> annotatedClass(Class<?> testClass) {
		for (Class<?> type = testClass; type != null; type = type.getEnclosingClass()) {
			if (type.isAnnotationPresent(RedisMasters.class)) {
				return Optional.of(type);
			}
		}
		return Optional.empty();
	}

	/**
	 * The class-level context of {@code annotated}, so the masters live as long as it.
	 */
	private static ExtensionContext contextOf(ExtensionContext context, Class<?> annotated) {
		for (ExtensionContext current = context; current != null; current = current.getParent().orElse(null)) {
			if (current.getTestClass().orElse(null) == annotated && current.getTestMethod().isEmpty()) {
				return current;
			}
		}
		return context;
	}

	private static void inject(Class<?> type, Object instance, RedisServers masters) {
		for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
			for (Field field : current.getDeclaredFields()) {
				if (field.getType() != RedisServers.class
						|| Modifier.isStatic(field.getModifiers()) != (instance == null)
						|| Modifier.isFinal(field.getModifiers())) {
					continue;
				}
				try {
					field.setAccessible(true);
					if (field.get(instance) == null) {
						field.set(instance, masters);
					}
				}
				catch (IllegalAccessException | RuntimeException ex) {
					throw new ExtensionConfigurationException("@RedisMasters cannot inject " + field, ex);
				}
			}
		}
	}

	/**
	 * The running masters, stopped when the store that holds them closes. Both closing
	 * contracts: JUnit before 5.13 closes only a {@link CloseableResource}, JUnit 5.13
	 * and later close an {@link AutoCloseable} (once, even if it is both), and JUnit 6
	 * warns about a value that is only the former.
	 */
	@SuppressWarnings("deprecation")
	private record Started(RedisServers masters) implements CloseableResource, AutoCloseable {

		@Override
		public void close() {
			this.masters.close();
		}

	}

}
