package io.quorumlock.sample.orders;

import java.time.Instant;

/**
 * A charge applied to an order.
 *
 * @param id the payment id
 * @param orderId the order
 * @param amountCents the amount charged, in cents
 * @param fencingToken the fencing token of the lease under which it was written
 * @param paidAt when it was written
 */
public record Payment(long id, String orderId, long amountCents, long fencingToken, Instant paidAt) {
}
