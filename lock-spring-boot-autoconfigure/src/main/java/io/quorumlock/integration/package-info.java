/**
 * Spring Integration on quorumlock: a {@code LockRegistry} backed by a
 * {@link io.quorumlock.DistributedLockRegistry}, for lock-based flows and for
 * {@code LockRegistryLeaderInitiator}'s leader election on a quorum of masters.
 */
package io.quorumlock.integration;
