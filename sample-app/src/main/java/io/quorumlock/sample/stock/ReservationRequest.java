package io.quorumlock.sample.stock;

import java.util.List;

/**
 * Reserve {@code quantity} of each of {@code skus}.
 *
 * @param reference the caller's reference (an order id)
 * @param skus the SKUs, distinct
 * @param quantity how many of each
 */
public record ReservationRequest(String reference, List<String> skus, int quantity) {
}
