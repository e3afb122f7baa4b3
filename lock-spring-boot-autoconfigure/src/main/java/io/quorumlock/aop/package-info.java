/**
 * The {@link io.quorumlock.DistributedLock @DistributedLock} interceptor: SpEL key
 * resolution, start-up checks of every annotated method, and hand-off by return type to
 * blocking, {@code CompletionStage} and Reactor handlers. Talks to the engine only
 * through {@link io.quorumlock.DistributedLockRegistry}.
 * <p>
 * Internal: its types are public for the auto-configuration only. They are not API and
 * may change in any release; applications use {@link io.quorumlock.DistributedLock} and
 * the {@code quorumlock.*} properties.
 */
package io.quorumlock.aop;
