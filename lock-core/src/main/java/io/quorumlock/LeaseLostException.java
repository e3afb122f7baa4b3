package io.quorumlock;

/**
 * A lease expired, or its renewal lost the quorum, before it was released: the work that
 * ran under it may have overlapped with another holder.
 */
public class LeaseLostException extends LockException {

	private static final long serialVersionUID = 1L;

	/** Whether the lease's renewal found the loss ({@link #foundByRenewal()}). */
	private final boolean foundByRenewal;

	/**
	 * Create a new exception, for a loss found by the lease's renewal.
	 * @param message the message, naming lock, key and figures
	 */
	public LeaseLostException(String message) {
		this(message, true);
	}

	/**
	 * Create a new exception.
	 * @param message the message, naming lock, key and figures
	 * @param foundByRenewal whether the lease's renewal found the loss (a renewal that a
	 * majority of masters refused, or the validity running out while renewal was due),
	 * rather than a fencing token's computation, an explicit extension, a release or a
	 * re-entry
	 */
	public LeaseLostException(String message, boolean foundByRenewal) {
		super(message);
		this.foundByRenewal = foundByRenewal;
	}

	/**
	 * Whether the lease's renewal found the loss: only such a loss is a renewal's outcome
	 * ({@code distributed.lock.renewals{outcome=lost}}); every loss counts as a loss
	 * ({@code distributed.lock.lost}).
	 * @return whether renewal found it
	 */
	public boolean foundByRenewal() {
		return this.foundByRenewal;
	}

}
