package io.quorumlock.sample.orders;

/**
 * No order with that id.
 */
public class OrderNotFoundException extends RuntimeException {

	/**
	 * Create the exception.
	 * @param id the order id
	 */
	public OrderNotFoundException(String id) {
		super("order '" + id + "' does not exist; create it with PUT /orders/" + id);
	}

}
