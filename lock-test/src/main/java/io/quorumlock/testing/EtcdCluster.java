package io.quorumlock.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs one etcd cluster of {@link #members()} real {@code etcd} processes on free
 * 127.0.0.1 ports (a client and a peer port each, a temp data directory each) for the
 * annotated test class and its {@code @Nested} classes: <pre class="code">
 * &#64;EtcdCluster(members = 3)
 * class PaymentLockTests {
 *
 *     static EtcdMembers etcd; // injected before all tests
 *
 *     &#64;Test
 *     void survivesTheLeaderKilled(EtcdMembers etcd) { // or as a parameter
 *         etcd.leader().kill();
 *         ...
 *     }
 * }
 * </pre> The members start before all tests of the class and stop after them; before each
 * test every member is resumed or restarted if a test paused or killed it (see
 * {@link EtcdMembers#reset()}). An {@link EtcdMembers} is injected into every static or
 * instance field of that type that is still {@code null}, and into parameters of that
 * type. {@link EtcdMembers#endpoints()} gives the client endpoints. The binary is the one
 * {@link EtcdBinary} finds.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(EtcdClusterExtension.class)
public @interface EtcdCluster {

	/**
	 * The number of members: 1, or 3 (or 5) for a cluster that survives a member down.
	 * @return the number of members, at least 1
	 */
	int members() default 1;

}
