package io.quorumlock.sample.stock;

/**
 * A reservation asked for more than is available.
 */
public class InsufficientStockException extends RuntimeException {

	/**
	 * Create the exception.
	 * @param sku the SKU short of stock
	 * @param available what is available
	 * @param wanted what was asked for
	 */
	public InsufficientStockException(String sku, int available, int wanted) {
		super("SKU '" + sku + "': " + available + " available, " + wanted + " wanted");
	}

}
