package io.quorumlock.sample.orders;

/**
 * What a payment request did: charged the order now, or found it already paid.
 */
public sealed interface PaymentOutcome {

	/**
	 * The payment of the order, new or earlier.
	 * @return the payment
	 */
	Payment payment();

	/**
	 * The order was charged by this request.
	 *
	 * @param payment the new payment
	 */
	record Charged(Payment payment) implements PaymentOutcome {
	}

	/**
	 * The order had been paid before; nothing was charged.
	 *
	 * @param payment the earlier payment
	 */
	record AlreadyPaid(Payment payment) implements PaymentOutcome {
	}

}
