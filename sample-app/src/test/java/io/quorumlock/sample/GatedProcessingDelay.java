package io.quorumlock.sample;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ProcessingDelay} that a test can hold inside the critical section: for an
 * armed subject, {@link #simulate} signals {@link Gate#entered} and waits for
 * {@link Gate#open()}. Other subjects get the configured delay.
 */
class GatedProcessingDelay extends ProcessingDelay {

	private final Map<String, Gate> gates = new ConcurrentHashMap<>();

	GatedProcessingDelay(Duration delay) {
		super(delay);
	}

	Gate arm(String subject) {
		Gate gate = new Gate();
		this.gates.put(subject, gate);
		return gate;
	}

	@Override
	public void simulate(String subject) {
		Gate gate = this.gates.remove(subject);
		if (gate == null) {
			super.simulate(subject);
			return;
		}
		gate.entered.countDown();
		try {
			if (!gate.proceed.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("gate for " + subject + " was never opened");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	static final class Gate {

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch proceed = new CountDownLatch(1);

		boolean awaitEntered() throws InterruptedException {
			return this.entered.await(30, TimeUnit.SECONDS);
		}

		void open() {
			this.proceed.countDown();
		}

	}

}
