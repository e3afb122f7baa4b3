package io.quorumlock.redis;

import java.util.Random;
import java.util.concurrent.Executor;
import java.util.function.Function;

import io.lettuce.core.RedisURI;
import io.quorumlock.redis.node.Timers;
import io.quorumlock.redis.node.Transport;

/**
 * What an engine runs on besides its settings, when a test supplies it: its time and
 * scheduling ({@link Timers}: the clock, the scheduler, the deadlines' wheel), where
 * callers' continuations run, the randomness of its tokens and jitter, and how it reaches
 * each listed node. Without one the engine makes its own: real threads, a
 * {@code SecureRandom} and Lettuce. The deterministic simulation drives every engine of a
 * run from one seeded event loop through this.
 *
 * @param timers the clock, the scheduler and the deadlines; not closed by the engine
 * @param async where callers' continuations run when they would otherwise run on an
 * engine thread
 * @param random the source of lease tokens and of the retry jitter's choices
 * @param transports the transport of each listed node
 */
record EngineRuntime(Timers timers, Executor async, Random random, Function<RedisURI, Transport> transports) {
}
