package io.quorumlock.sample;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Stands for the slow external call in the middle of a business operation (a payment
 * provider, a warehouse system): it sleeps {@code sample.processing-delay} (default
 * 100ms). It sits between reading the state and writing the result, so it is the window
 * in which two unlocked requests would both act on the same stale state.
 */
@Component
public class ProcessingDelay {

	private final Duration delay;

	/**
	 * Create the delay.
	 * @param delay how long each simulated call takes
	 */
	public ProcessingDelay(@Value("${sample.processing-delay:100ms}") Duration delay) {
		this.delay = delay;
	}

	/**
	 * Simulate the external call for {@code subject}.
	 * @param subject what the call is about (an order id, a reservation reference)
	 */
	public void simulate(String subject) {
		if (this.delay.isZero() || this.delay.isNegative()) {
			return;
		}
		try {
			Thread.sleep(this.delay.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while processing " + subject, ex);
		}
	}

}
