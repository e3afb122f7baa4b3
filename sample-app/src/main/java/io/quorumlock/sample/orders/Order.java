package io.quorumlock.sample.orders;

/**
 * An order to be paid once.
 *
 * @param id the order id
 * @param amountCents the amount to charge, in cents
 * @param status {@code NEW} or {@code PAID}
 * @param lastFencingToken the fencing token of the last lock holder that wrote the order
 */
public record Order(String id, long amountCents, String status, long lastFencingToken) {

	/** Status of an order not paid yet. */
	public static final String NEW = "NEW";

	/** Status of a paid order. */
	public static final String PAID = "PAID";

	/**
	 * Whether the order is paid.
	 * @return {@code true} if paid
	 */
	public boolean paid() {
		return PAID.equals(this.status);
	}

}
