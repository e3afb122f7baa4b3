package io.quorumlock;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The lease of the innermost {@code @DistributedLock} method (or
 * {@link DistributedLockRegistry#execute execute} action) running on this thread, for
 * code that needs its fencing token or remaining validity: <pre>{@code
 * long token = CurrentLease.require().fencingToken();
 * }</pre> The leases bound here are also what makes a nested acquisition of the same keys
 * on this thread a re-entry (see {@link DistributedLockRegistry}): a binding lasts
 * exactly as long as the call that opened it, so it can never outlive the work it guards
 * or follow a pool thread into an unrelated task.
 */
public final class CurrentLease {

	/** The innermost binding; each links to the one it hides. */
	private static final ThreadLocal<Binding> CURRENT = new ThreadLocal<>();

	private CurrentLease() {
	}

	/**
	 * The lease of the innermost annotated method on this thread.
	 * @return the lease, or empty outside any {@code @DistributedLock} method
	 */
	public static Optional<Lease> get() {
		Binding binding = CURRENT.get();
		return (binding != null) ? Optional.of(binding.lease) : Optional.empty();
	}

	/**
	 * The lease of the innermost annotated method on this thread, for code that cannot
	 * run without one: <pre>{@code
	 * long token = CurrentLease.require().fencingToken();
	 * }</pre>
	 * @return the lease
	 * @throws IllegalStateException if no {@code @DistributedLock} lease is active on
	 * this thread, naming the usual cause: a call that did not go through the Spring
	 * proxy
	 */
	public static Lease require() {
		Binding binding = CURRENT.get();
		if (binding == null) {
			throw new IllegalStateException("No @DistributedLock lease is active on thread '"
					+ Thread.currentThread().getName() + "'. Usually the annotated method was called on 'this' (or is "
					+ "private, static or final), so the call did not go through the Spring proxy and ran unlocked: "
					+ "call it on the injected bean. Work handed to another thread does not see the caller's lease "
					+ "either: pass the lease or its fencing token along.");
		}
		return binding.lease;
	}

	/**
	 * {@link Lease#checkValid()} of the lease of the innermost annotated method on this
	 * thread: a cheap check for a long method to call in its loop, which throws once the
	 * lease is lost.
	 * @throws LeaseLostException if that lease is lost, expired or released
	 * @throws IllegalStateException if no {@code @DistributedLock} lease is active on
	 * this thread (see {@link #require()})
	 */
	public static void checkValid() {
		require().checkValid();
	}

	/**
	 * Whether a lease bound on this thread, the innermost or one it hides, passes the
	 * test. For registries deciding re-entry.
	 * @param test the test
	 * @return whether a bound lease passes it
	 */
	public static boolean anyBound(Predicate<? super Lease> test) {
		for (Binding binding = CURRENT.get(); binding != null; binding = binding.previous) {
			if (test.test(binding.lease)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Make {@code lease} the current lease until the returned scope is closed, which
	 * restores the previous one. For integrations such as the aspect; scopes must be
	 * closed in reverse order on the thread that opened them.
	 * @param lease the lease
	 * @return the scope to close
	 */
	public static Scope bind(Lease lease) {
		Objects.requireNonNull(lease, "'lease' must not be null");
		Binding binding = new Binding(lease, CURRENT.get());
		CURRENT.set(binding);
		return binding;
	}

	/** One binding; closing it restores the one before. */
	private static final class Binding implements Scope {

		final Lease lease;

		final Binding previous;

		Binding(Lease lease, Binding previous) {
			this.lease = lease;
			this.previous = previous;
		}

		@Override
		public void close() {
			// restored with set(null) rather than remove(): the thread keeps one entry
			// whose value is null (nothing retained), and the next bind on this thread
			// does not re-insert it and clean the thread's map, which is most of a
			// binding's cost
			CURRENT.set(this.previous);
		}

	}

	/**
	 * A binding of the current lease, undone by {@link #close()}.
	 */
	@FunctionalInterface
	public interface Scope extends AutoCloseable {

		/**
		 * Restore the lease that was current before.
		 */
		@Override
		void close();

	}

}
