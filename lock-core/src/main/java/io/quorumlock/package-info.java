/**
 * Public API of quorumlock: the {@link io.quorumlock.DistributedLock} annotation, the
 * programmatic {@link io.quorumlock.DistributedLockRegistry}, leases, exceptions and the
 * {@link io.quorumlock.LockListener} SPI. Depends on the JDK only.
 */
package io.quorumlock;
