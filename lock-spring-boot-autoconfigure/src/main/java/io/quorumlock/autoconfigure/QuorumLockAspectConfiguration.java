package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.transaction.ConfigurableTransactionManager;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.aop.DistributedLockAdvisor;
import io.quorumlock.aop.DistributedLockMethodValidator;
import io.quorumlock.aop.LeaseCommitGuard;
import io.quorumlock.redis.QuorumLockEngine;

/**
 * The {@code @DistributedLock} advisor and the start-up check of every annotated method.
 */
@Configuration(proxyBeanMethods = false)
@Import(QuorumLockAutoProxyRegistrar.class)
class QuorumLockAspectConfiguration {

	/**
	 * Infrastructure and static: auto-proxy creators ask for advisors early, so this bean
	 * must not drag the configuration class, the properties or the engine in with it. The
	 * registry is looked up on the first annotated call, the order read from the
	 * environment.
	 */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static DistributedLockAdvisor distributedLockAdvisor(ObjectProvider<DistributedLockRegistry> registry,
			BeanFactory beanFactory, Environment environment) {
		DistributedLockAdvisor advisor = new DistributedLockAdvisor(registry::getObject,
				() -> asyncExecutor(beanFactory));
		advisor.setOrder(Binder.get(environment)
			.bind("quorumlock.aspect-order", Integer.class)
			.orElse(DistributedLockAdvisor.DEFAULT_ORDER));
		return advisor;
	}

	@Bean
	@ConditionalOnMissingBean
	DistributedLockMethodValidator distributedLockMethodValidator(QuorumLockProperties properties,
			ObjectProvider<DistributedLockRegistry> registry) {
		return new DistributedLockMethodValidator(() -> NodeTimeouts.inForce(registry.getIfUnique(), properties),
				(name) -> ConfiguredLockOptions.forName(properties, name),
				() -> (registry.getIfUnique() instanceof QuorumLockEngine engine) ? engine.rejoinDelay()
						: Duration.ZERO);
	}

	/**
	 * Ties every transaction begun under a lock to the lock's lease, so that it does not
	 * commit once the lease is lost ({@link LeaseCommitGuard}): added to each
	 * {@code ConfigurableTransactionManager} of the context, the application's own too.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.transaction.ConfigurableTransactionManager")
	@ConditionalOnProperty(prefix = "quorumlock.commit-guard", name = "enabled", matchIfMissing = true)
	static class LeaseCommitGuardConfiguration {

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static BeanPostProcessor quorumLockLeaseCommitGuardRegistrar(Environment environment) {
			// bound here, not from the properties bean: a post-processor is created early
			Duration margin = Binder.get(environment)
				.bind("quorumlock.commit-guard.margin", Duration.class)
				.orElse(new CommitGuardProperties().getMargin());
			LeaseCommitGuard guard = new LeaseCommitGuard(margin.isNegative() ? Duration.ZERO : margin);
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					if (bean instanceof ConfigurableTransactionManager manager
							&& !manager.getTransactionExecutionListeners().contains(guard)) {
						manager.addListener(guard);
					}
					return bean;
				}

			};
		}

	}

	/** Boot's application task executor when there is one, else the common pool. */
	private static Executor asyncExecutor(BeanFactory beanFactory) {
		String name = TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME;
		if (beanFactory.containsBean(name) && beanFactory.isTypeMatch(name, Executor.class)) {
			return beanFactory.getBean(name, Executor.class);
		}
		return ForkJoinPool.commonPool();
	}

}
