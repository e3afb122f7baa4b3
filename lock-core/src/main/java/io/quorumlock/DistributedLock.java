package io.quorumlock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method on at most one thread of one instance at a time for each
 * evaluated key, across every instance that shares the same Redis node(s).
 * <p>
 * Durations accept {@code "500ms"}, {@code "30s"}, {@code "2m"}, or ISO-8601 such as
 * {@code "PT30S"}; an empty string means the configured default. Annotation attributes
 * win over {@code quorumlock.instances.<name>.*}, which win over the global
 * {@code quorumlock.*} defaults.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

	/**
	 * SpEL expression evaluated against the method's arguments ({@code #name},
	 * {@code #p0}/{@code #a0}, {@code #root.method}, {@code @bean}). A collection or
	 * array result locks every element, all or nothing, in sorted order.
	 * @return the key expression
	 */
	String key();

	/**
	 * Optional logical name: part of the Redis key and the {@code lock} metrics tag.
	 * @return the lock name, or empty for none
	 */
	String name() default "";

	/**
	 * Time to live of each grant; empty means {@code quorumlock.lease}.
	 * @return the lease duration
	 */
	String lease() default "";

	/**
	 * How long to wait for the lock; {@code "0s"} tries once; empty means
	 * {@code quorumlock.wait-at-most}. (Not {@code wait}: an annotation member cannot be
	 * named like {@code Object.wait()}.)
	 * @return the maximum wait
	 */
	String waitAtMost() default "";

	/**
	 * Whether a watchdog extends the lease every lease/3 while the method runs.
	 * @return whether to renew
	 */
	boolean renew() default true;

	/**
	 * Stop renewing after this long; empty means no bound.
	 * @return the maximum hold with renewal
	 */
	String holdAtMost() default "";

	/**
	 * Keep the lock until this long after its acquisition began, even if the method
	 * returned earlier: on release the key stays on the nodes for the remainder (a
	 * token-checked expiry, no early wake-up of waiters) and renewal stops. With
	 * {@code @Scheduled} and {@code onFailure = SKIP}, a job runs once per tick across
	 * instances whose schedulers fire a little apart. Empty means
	 * {@code quorumlock.hold-at-least}, which defaults to releasing at once. Must not be
	 * longer than the lease unless {@link #renew()} is on.
	 * @return the minimum hold
	 */
	String holdAtLeast() default "";

	/**
	 * {@link LockMode#EXCLUSIVE} (the default): one holder at a time;
	 * {@link LockMode#SHARED}: shared holders of a key coexist, while an exclusive holder
	 * excludes everyone (readers and a writer of the same key).
	 * @return the lock mode
	 */
	LockMode mode() default LockMode.EXCLUSIVE;

	/**
	 * At most this many holders at once (a semaphore): above 1, the lock is that many
	 * exclusive slot locks of the key ({@code <lock key>:permit:<i>}, same hash slot), of
	 * which each holder owns one. Only with {@link LockMode#EXCLUSIVE} and one key; a
	 * value below 1 stops the start-up.
	 * @return the number of holders let in at once
	 */
	int permits() default 1;

	/**
	 * What to do when the lock cannot be acquired.
	 * @return the failure policy
	 */
	OnFailure onFailure() default OnFailure.THROW;

	/**
	 * Interrupt the method's thread when the lease is lost while the method runs, so that
	 * a blocking call it is in (a sleep, a wait, interruptible I/O, a JDBC driver that
	 * honours interrupts) ends early instead of working on without the lock. The call
	 * then fails with the {@link LeaseLostException}, the method's own failure suppressed
	 * in it, and the thread's interrupt flag is cleared before the call returns, so the
	 * interrupt never reaches the caller's later code. Off by default: an interrupt
	 * surprises code that does not expect one. Only for methods that run on the calling
	 * thread; an asynchronous or reactive result already ends with the loss, and is
	 * refused with this attribute at start-up.
	 * @return whether a loss interrupts the method's thread
	 */
	boolean interruptOnLoss() default false;

}
