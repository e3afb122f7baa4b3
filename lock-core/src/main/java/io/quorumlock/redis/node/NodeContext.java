package io.quorumlock.redis.node;

import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * What every {@link RedisNode} of an engine shares: the engine's timers, the keys the
 * engine itself uses on each master, the restart guard and how it judges a master, and
 * where messages and failures go.
 *
 * @param timers the engine's clock, scheduler and deadlines
 * @param probeKey a key under the lock prefix that the script permission probe reads
 * @param probeChannel the release channel of {@code probeKey}
 * @param guardKeys the dataset marker and the pending record ({@link ServerState})
 * @param guard the restart guard, or null without one (single mode, rejoin-delay 0)
 * @param clockDriftFactor how far an engine's clock may run from true time
 * @param freshRunIds server processes an operator declared brand new
 * @param anyMarked whether the engine ever trusted a dataset marker on any master
 * @param ids new random ids
 * @param replicatedWrites whether writes that replicas must acknowledge
 * ({@code sync-replicas}) go through a connection of their own
 * @param evictionAllowed whether masters that can evict lock keys vote anyway (then a
 * master that evicted keys is not held back for it either)
 * @param onMessage called with the channel and the text of every release message
 * @param onError called with a node's address and every connection failure of it
 */
public record NodeContext(Timers timers, String probeKey, String probeChannel, String[] guardKeys, GuardRecord guard,
		double clockDriftFactor, Set<String> freshRunIds, AtomicBoolean anyMarked, Supplier<String> ids,
		boolean replicatedWrites, boolean evictionAllowed, BiConsumer<String, String> onMessage,
		BiConsumer<String, Throwable> onError) {
}
