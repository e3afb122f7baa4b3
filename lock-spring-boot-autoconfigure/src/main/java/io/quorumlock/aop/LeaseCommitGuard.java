package io.quorumlock.aop;

import java.time.Duration;

import org.springframework.core.Ordered;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

import io.quorumlock.CurrentLease;
import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;

/**
 * Keeps a transaction begun under a lock from committing once the lock's lease is lost.
 * Added to every transaction manager of the application, it ties each new transaction
 * begun while a lease is current on the thread (the body of a {@code @DistributedLock}
 * method, an {@code execute} action) to that lease, and checks the lease just before the
 * commit ({@link Lease#checkValid()}): a lost or expired lease fails the commit with its
 * {@link LeaseLostException}, and the transaction rolls back. A commit after the check
 * still races the lease's last moments, by at most the commit's own duration, so a guard
 * built with a margin also refuses a commit under a lease with less validity left than
 * that margin (a commit that could outlive it); the fencing token is what protects a
 * store that checks it. A transaction begun before the lock (the aspect ordered inside
 * {@code @Transactional}) is not tied to it.
 */
public final class LeaseCommitGuard implements TransactionExecutionListener {

	private final Duration margin;

	/**
	 * A guard that refuses a commit only under a lease already lost or expired.
	 */
	public LeaseCommitGuard() {
		this(Duration.ZERO);
	}

	/**
	 * A guard that also refuses a commit under a lease with less validity left than a
	 * margin: a commit that could outlive the lease.
	 * @param margin the validity a lease must still have at commit time, not negative
	 */
	public LeaseCommitGuard(Duration margin) {
		Assert.notNull(margin, "'margin' must not be null");
		Assert.isTrue(!margin.isNegative(), () -> "'margin' must not be negative, was " + margin);
		this.margin = margin;
	}

	@Override
	public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
		if (beginFailure != null || !transaction.isNewTransaction()
				|| !TransactionSynchronizationManager.isSynchronizationActive()) {
			return;
		}
		CurrentLease.get()
			.ifPresent((lease) -> TransactionSynchronizationManager
				.registerSynchronization(new Check(lease, this.margin)));
	}

	/** The check of one transaction's lease, the last thing before its commit. */
	private record Check(Lease lease, Duration margin) implements TransactionSynchronization {

		@Override
		public void beforeCommit(boolean readOnly) {
			this.lease.checkValid();
			if (this.margin.isZero()) {
				return;
			}
			Duration left = this.lease.remaining();
			if (left.compareTo(this.margin) < 0) {
				throw new LeaseLostException(this.lease + ": " + left.toMillis()
						+ " ms of validity left at commit, below the commit margin of " + this.margin.toMillis()
						+ " ms (quorumlock.commit-guard.margin): the commit could outlive the lease, so the "
						+ "transaction is rolled back");
			}
		}

		@Override
		public int getOrder() {
			return Ordered.LOWEST_PRECEDENCE;
		}

	}

}
