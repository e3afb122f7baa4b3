/**
 * Stock reservations locking several SKUs at once with a collection key.
 */
package io.quorumlock.sample.stock;
