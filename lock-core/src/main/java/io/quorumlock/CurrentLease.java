package io.quorumlock;

import java.util.Objects;
import java.util.Optional;

/**
 * The lease of the innermost {@code @DistributedLock} method running on this thread, for
 * code that needs its fencing token or remaining validity: <pre>{@code
 * long token = CurrentLease.get().orElseThrow().fencingToken();
 * }</pre>
 */
public final class CurrentLease {

	private static final ThreadLocal<Lease> CURRENT = new ThreadLocal<>();

	private CurrentLease() {
	}

	/**
	 * The lease of the innermost annotated method on this thread.
	 * @return the lease, or empty outside any {@code @DistributedLock} method
	 */
	public static Optional<Lease> get() {
		return Optional.ofNullable(CURRENT.get());
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
		Lease previous = CURRENT.get();
		CURRENT.set(lease);
		// restored with set(null) rather than remove(): the thread keeps one entry whose
		// value is null (nothing retained), and the next bind on this thread does not
		// re-insert it and clean the thread's map, which is most of a binding's cost
		return () -> CURRENT.set(previous);
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
