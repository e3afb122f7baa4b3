package io.quorumlock.sample.stock;

import java.util.Map;

/**
 * A stock reservation that was applied.
 *
 * @param reference the caller's reference
 * @param quantity how many of each SKU were reserved
 * @param remaining the stock left per SKU after the reservation
 */
public record Reservation(String reference, int quantity, Map<String, Integer> remaining) {
}
