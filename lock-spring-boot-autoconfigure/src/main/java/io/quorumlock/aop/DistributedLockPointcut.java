package io.quorumlock.aop;

import java.lang.reflect.Method;

import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotationUtils;

import io.quorumlock.DistributedLock;

/**
 * Matches methods annotated with {@code @DistributedLock}, on the class or on an
 * interface it implements.
 */
final class DistributedLockPointcut extends StaticMethodMatcherPointcut {

	DistributedLockPointcut() {
		setClassFilter((type) -> AnnotationUtils.isCandidateClass(type, DistributedLock.class));
	}

	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		return LockOperationParser.findAnnotation(method, targetClass) != null;
	}

}
