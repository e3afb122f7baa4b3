package io.quorumlock.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs {@link #value()} real {@code redis-server} masters on free 127.0.0.1 ports for the
 * annotated test class (and its {@code @Nested} classes), without persistence:
 * <pre class="code">
 * &#64;RedisMasters(3)
 * class PaymentLockTests {
 *
 *     static RedisServers masters; // injected before all tests
 *
 *     &#64;Test
 *     void survivesAMasterKilled(RedisServers masters) { // or as a parameter
 *         masters.node(0).kill();
 *         ...
 *     }
 * }
 * </pre> The masters start before all tests of the class and stop after them; before each
 * test every master is resumed or restarted if a test paused or killed it, and flushed. A
 * {@link RedisServers} is injected into every static or instance field of that type of
 * the test class that is still {@code null}, and into parameters of that type of test
 * methods, lifecycle methods and constructors. {@link RedisServers#uris()} gives the
 * masters' URIs for {@code quorumlock.nodes}; with Spring,
 * {@link QuorumLockTestProperties#register} sets the properties from a
 * {@code @DynamicPropertySource} method.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisMastersExtension.class)
public @interface RedisMasters {

	/**
	 * The number of masters: 1 for single mode, 3 or 5 for a quorum.
	 * @return the number of masters, at least 1
	 */
	int value() default 1;

}
