/**
 * Orders and payments: a payment under {@code @DistributedLock}, written with the lease's
 * fencing token.
 */
package io.quorumlock.sample.orders;
