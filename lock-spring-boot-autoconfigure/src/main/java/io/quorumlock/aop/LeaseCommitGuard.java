package io.quorumlock.aop;

import org.springframework.core.Ordered;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

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
 * still races the lease's last moments, by at most the commit's own duration; the fencing
 * token is what protects a store that checks it. A transaction begun before the lock (the
 * aspect ordered inside {@code @Transactional}) is not tied to it.
 */
public final class LeaseCommitGuard implements TransactionExecutionListener {

	@Override
	public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
		if (beginFailure != null || !transaction.isNewTransaction()
				|| !TransactionSynchronizationManager.isSynchronizationActive()) {
			return;
		}
		CurrentLease.get()
			.ifPresent((lease) -> TransactionSynchronizationManager.registerSynchronization(new Check(lease)));
	}

	/** The check of one transaction's lease, the last thing before its commit. */
	private record Check(Lease lease) implements TransactionSynchronization {

		@Override
		public void beforeCommit(boolean readOnly) {
			this.lease.checkValid();
		}

		@Override
		public int getOrder() {
			return Ordered.LOWEST_PRECEDENCE;
		}

	}

}
