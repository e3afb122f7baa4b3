package io.quorumlock.sample.orders;

/**
 * The store refused a write whose fencing token is not greater than the last one it
 * accepted for the row: the writer's lease expired and a later holder has written since.
 */
public class StaleFencingTokenException extends RuntimeException {

	/**
	 * Create the exception.
	 * @param orderId the order
	 * @param token the refused token
	 * @param last the last token the store accepted
	 */
	public StaleFencingTokenException(String orderId, long token, long last) {
		super("order '" + orderId + "': write with fencing token " + token
				+ " refused, the store has already accepted token " + last
				+ " (this writer's lease expired and a later holder wrote)");
	}

}
