package io.quorumlock.aop;

import java.util.concurrent.Executor;
import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.core.Ordered;
import org.springframework.util.Assert;
import org.springframework.util.function.SingletonSupplier;

import io.quorumlock.DistributedLockRegistry;

/**
 * Advisor that applies the {@code @DistributedLock} interceptor to annotated methods,
 * picked up by Spring's auto-proxy creator like the transaction advisor.
 * <p>
 * Its order decides how it nests with other advice. The default, {@link #DEFAULT_ORDER},
 * has a higher precedence than the transaction advisor
 * ({@code @EnableTransactionManagement} defaults to {@link Ordered#LOWEST_PRECEDENCE}),
 * so the lock is taken before the transaction begins and released only after it has
 * committed or rolled back: the next holder always sees the committed data.
 */
public class DistributedLockAdvisor extends AbstractPointcutAdvisor implements BeanFactoryAware {

	/**
	 * Default order: {@code Ordered.LOWEST_PRECEDENCE - 1000}, outside
	 * {@code @Transactional} at its default order.
	 */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

	private static final long serialVersionUID = 1L;

	private final transient DistributedLockPointcut pointcut = new DistributedLockPointcut();

	private final transient DistributedLockInterceptor interceptor;

	/**
	 * Create an advisor.
	 * @param registry supplies the registry on the first annotated call (so the advisor
	 * can be created early without creating the engine)
	 * @param asyncExecutor supplies the executor that runs a method returning a
	 * {@code CompletionStage} once its lease is granted
	 */
	public DistributedLockAdvisor(Supplier<DistributedLockRegistry> registry, Supplier<Executor> asyncExecutor) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(asyncExecutor, "'asyncExecutor' must not be null");
		this.interceptor = new DistributedLockInterceptor(SingletonSupplier.of(registry),
				SingletonSupplier.of(asyncExecutor));
		setOrder(DEFAULT_ORDER);
	}

	/**
	 * Bean factory for {@code @beanName} references in key expressions.
	 * @param beanFactory the bean factory
	 */
	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.interceptor.setBeanFactory(beanFactory);
	}

	/**
	 * Methods annotated with {@code @DistributedLock}.
	 * @return the pointcut
	 */
	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	/**
	 * The interceptor.
	 * @return the advice
	 */
	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
