/**
 * The lock engine: Redis nodes over Lettuce, Lua scripts, the Redlock quorum, waiting,
 * renewal and fencing. Usable without Spring through
 * {@link io.quorumlock.redis.QuorumLockEngine}.
 */
package io.quorumlock.redis;
