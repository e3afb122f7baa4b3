package io.quorumlock.aop;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import io.quorumlock.Lease;
import io.quorumlock.LeaseLostException;

/**
 * Interrupts the thread running a locked method when its lease is lost
 * ({@code @DistributedLock(interruptOnLoss = true)}), and only while the method runs: an
 * interrupt must never reach the caller's code after the method has returned.
 * <p>
 * One state decides it. The loss moves it from {@link #RUNNING} to {@link #INTERRUPTED}
 * and then interrupts; the method's end moves it from {@link #RUNNING} to {@link #ENDED}.
 * Exactly one of the two moves wins. When the loss won, {@link #end()} waits for the
 * interrupt to have been delivered (a few instructions after the move) and then clears
 * the thread's flag, so the interrupt cannot land after the flag was cleared.
 */
final class LossInterrupt {

	private static final int RUNNING = 0;

	private static final int ENDED = 1;

	private static final int INTERRUPTED = 2;

	private final AtomicInteger state = new AtomicInteger(RUNNING);

	private final CountDownLatch delivered = new CountDownLatch(1);

	private volatile LeaseLostException loss;

	private LossInterrupt() {
	}

	/**
	 * Interrupt the calling thread if the lease is lost before {@link #end()}.
	 * @param lease the lease the method runs under
	 * @return the interrupt to end when the method returns or throws
	 */
	static LossInterrupt arm(Lease lease) {
		LossInterrupt interrupt = new LossInterrupt();
		Thread runner = Thread.currentThread();
		// may complete at once (already lost) or later on an engine thread; interrupt()
		// does not block, so it is safe on either
		lease.whenLost().thenAccept((lost) -> interrupt.lost(runner, lost));
		return interrupt;
	}

	private void lost(Thread runner, LeaseLostException lost) {
		if (this.state.compareAndSet(RUNNING, INTERRUPTED)) {
			this.loss = lost;
			runner.interrupt();
			this.delivered.countDown();
		}
	}

	/**
	 * End the window in which a loss interrupts the thread; call on the method's thread
	 * once it has returned or thrown.
	 * @return the loss that interrupted the method, or null if none did
	 */
	LeaseLostException end() {
		if (this.state.compareAndSet(RUNNING, ENDED)) {
			return null;
		}
		while (this.delivered.getCount() > 0) {
			try {
				this.delivered.await();
			}
			catch (InterruptedException ex) {
				// ours, delivered while waiting: the flag is cleared below anyway
			}
		}
		Thread.interrupted(); // the interrupt was ours: it stops here
		return this.loss;
	}

}
