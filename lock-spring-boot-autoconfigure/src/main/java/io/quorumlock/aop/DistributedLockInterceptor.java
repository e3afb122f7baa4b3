package io.quorumlock.aop;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.MethodClassKey;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockRequest;

/**
 * Resolves the key of an annotated call, builds the {@link LockRequest} and hands off by
 * return type. Declarations are parsed once per method and target class.
 */
final class DistributedLockInterceptor implements MethodInterceptor {

	private final Supplier<DistributedLockRegistry> registry;

	private final LockKeyEvaluator evaluator = new LockKeyEvaluator();

	private final LockOperationParser parser = new LockOperationParser(this.evaluator);

	private final Map<MethodClassKey, Optional<LockOperation>> operations = new ConcurrentHashMap<>(64);

	private final BlockingHandler blocking = new BlockingHandler();

	private final CompletionStageHandler stages;

	private final ReactorHandler reactor;

	/**
	 * Resolves {@code @bean} in keys; one for the interceptor's life, not one per call.
	 */
	private volatile BeanFactoryResolver beans;

	DistributedLockInterceptor(Supplier<DistributedLockRegistry> registry, Supplier<Executor> asyncExecutor) {
		this.registry = registry;
		this.stages = new CompletionStageHandler(asyncExecutor);
		this.reactor = ReturnKind.REACTOR_PRESENT ? new ReactorHandler() : null;
	}

	void setBeanFactory(BeanFactory beanFactory) {
		this.beans = new BeanFactoryResolver(beanFactory);
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LockOperation operation = operation(invocation.getMethod(), targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		LockRequest request;
		try {
			request = this.evaluator.request(operation, target, invocation.getArguments(), this.beans);
		}
		catch (LockKeyException ex) {
			return failed(operation.returnKind(), ex);
		}
		DistributedLockRegistry registry = this.registry.get();
		return switch (operation.returnKind()) {
			case BLOCKING -> this.blocking.invoke(registry, invocation, request, operation);
			case COMPLETION_STAGE -> this.stages.invoke(registry, later(invocation).get(), request, operation);
			case MONO, FLUX -> this.reactor.invoke(registry, later(invocation), request, operation);
		};
	}

	/**
	 * A key that cannot be used, reported the way the method reports failures: thrown by
	 * a blocking method, through the result of an asynchronous one. The arguments are
	 * read now, at the call, in either case.
	 */
	private Object failed(ReturnKind kind, LockKeyException failure) {
		return switch (kind) {
			case BLOCKING -> throw failure;
			case COMPLETION_STAGE -> CompletableFuture.failedFuture(failure);
			case MONO, FLUX -> ReactorHandler.failed(kind, failure);
		};
	}

	private LockOperation operation(Method method, Class<?> targetClass) {
		MethodClassKey key = new MethodClassKey(method, targetClass);
		Optional<LockOperation> operation = this.operations.get(key);
		if (operation == null) {
			operation = this.operations.computeIfAbsent(key,
					(k) -> Optional.ofNullable(this.parser.parse(method, targetClass)));
		}
		return operation.orElse(null);
	}

	/**
	 * Invocations that proceed after this call has returned, on another thread, and for
	 * Reactor once per subscription: each a clone that continues the chain from here.
	 */
	private static Supplier<MethodInvocation> later(MethodInvocation invocation) {
		if (invocation instanceof ProxyMethodInvocation proxied) {
			return proxied::invocableClone;
		}
		return () -> invocation;
	}

}
