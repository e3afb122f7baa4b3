/**
 * ShedLock on quorumlock: a {@code LockProvider} backed by a
 * {@link io.quorumlock.DistributedLockRegistry}, so that {@code @SchedulerLock} jobs run
 * on a quorum of independent masters.
 */
package io.quorumlock.shedlock;
