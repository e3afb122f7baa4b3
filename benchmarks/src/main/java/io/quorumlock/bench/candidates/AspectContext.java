package io.quorumlock.bench.candidates;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.util.ClassUtils;

import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;

/**
 * A plain {@link AnnotationConfigApplicationContext} (no
 * {@code @EnableAutoConfiguration}) that imports quorumlock's auto-configuration, with
 * the given registry as the application's own registry bean (the auto-configuration backs
 * off from creating one) and one bean with {@code @DistributedLock} methods.
 * <p>
 * The auto-configuration is looked up by name, so this module compiles while it does not
 * exist yet; opening then fails with a message saying the candidate "is unavailable".
 */
public final class AspectContext implements AutoCloseable {

	/** The auto-configuration class. */
	public static final String AUTO_CONFIGURATION = "io.quorumlock.autoconfigure.QuorumLockAutoConfiguration";

	private final AnnotationConfigApplicationContext context;

	private final LockedService service;

	private AspectContext(AnnotationConfigApplicationContext context) {
		this.context = context;
		this.service = context.getBean(LockedService.class);
	}

	/**
	 * Start a context around a registry; closing the context closes the registry if it is
	 * {@link AutoCloseable}.
	 * @param <R> the registry type
	 * @param type the registry type, as registered
	 * @param registry the registry
	 * @return the context
	 */
	public static <R extends DistributedLockRegistry> AspectContext open(Class<R> type, R registry) {
		Class<?> autoConfiguration;
		try {
			autoConfiguration = ClassUtils.forName(AUTO_CONFIGURATION, AspectContext.class.getClassLoader());
		}
		catch (ClassNotFoundException | LinkageError ex) {
			throw new UnsupportedOperationException(
					"quorumlock-aspect is unavailable: " + AUTO_CONFIGURATION + " is not on the class path", ex);
		}
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean("benchmarkLockRegistry", type, () -> registry);
		context.register(AspectConfiguration.class, autoConfiguration);
		context.refresh();
		AspectContext aspect = new AspectContext(context);
		if (!AopUtils.isAopProxy(aspect.service)) {
			context.close();
			throw new IllegalStateException("quorumlock-aspect: the @DistributedLock bean was not proxied");
		}
		return aspect;
	}

	/**
	 * The proxied bean.
	 * @return the bean
	 */
	public LockedService service() {
		return this.service;
	}

	@Override
	public void close() {
		this.context.close();
	}

	/** The annotated bean, proxied by the auto-proxy creator. */
	public static class LockedService {

		/**
		 * Try once.
		 * @param key the key
		 * @param body the critical section
		 * @return true (a failure throws)
		 */
		@DistributedLock(key = "#key", lease = "30s")
		public boolean once(String key, Runnable body) {
			body.run();
			return true;
		}

		/**
		 * Wait up to 10 s.
		 * @param key the key
		 * @param body the critical section
		 * @return true (a failure throws)
		 */
		@DistributedLock(key = "#key", lease = "30s", waitAtMost = "10s")
		public boolean waiting(String key, Runnable body) {
			body.run();
			return true;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAspectJAutoProxy(proxyTargetClass = true)
	static class AspectConfiguration {

		@Bean
		LockedService lockedService() {
			return new LockedService();
		}

	}

}
