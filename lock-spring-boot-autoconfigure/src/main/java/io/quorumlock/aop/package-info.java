/**
 * The {@link io.quorumlock.DistributedLock @DistributedLock} interceptor: SpEL key
 * resolution, start-up checks of every annotated method, and hand-off by return type to
 * blocking, {@code CompletionStage} and Reactor handlers. Talks to the engine only
 * through {@link io.quorumlock.DistributedLockRegistry}.
 */
package io.quorumlock.aop;
