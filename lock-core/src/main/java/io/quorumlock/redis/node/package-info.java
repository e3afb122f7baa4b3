/**
 * The transport wing of the engine: one Redis master over Lettuce, below the algorithm in
 * {@code io.quorumlock.redis}. Internal: public only for {@code io.quorumlock.redis}; not
 * API, and it may change in any release without notice. A reading map:
 * <ol>
 * <li>Reaching a server: {@link io.quorumlock.redis.node.Transport} opens
 * {@link io.quorumlock.redis.node.Link}s ({@code LettuceTransport} for one server,
 * {@code ClusterTransport} for a whole Redis Cluster in single mode, made by
 * {@code LettuceTransports}; a test's in the simulation).</li>
 * <li>One master: {@link io.quorumlock.redis.node.RedisNode} connects in the background
 * ({@code Reconnector}), starts a connection epoch on every drop, reconnect and NOSCRIPT,
 * loads every {@code Script} and {@code SharedScripts} script on every connection per
 * epoch, probes its ACL ({@code ScriptProbe}), reads its server's state
 * ({@code ServerState}: run_id, eviction policy, the restart guard's dataset marker and
 * {@code GuardRecord}), sends {@code WAIT} on a connection of its own
 * ({@code ReplicatedWrites}), sends lost releases and undos again while their lease could
 * live ({@code Redos}), batches renewals ({@code RenewalBatch}), subscribes through
 * {@code PubSub} (lost UNSUBSCRIBEs in {@code LostUnsubscribes}) and scans for keys
 * without a TTL ({@code LeakScan}).</li>
 * <li>What a round sees of it: {@link io.quorumlock.redis.node.Voter} (address, epoch,
 * answers counted), {@link io.quorumlock.redis.node.Timers} (the engine's clock and
 * scheduler), {@code Replies} (Lettuce's failures in Redis's words), and the verdicts
 * {@code NodeHeldBackException}, {@code NodeDataLostException} and
 * {@code StaleAnswerException}.</li>
 * </ol>
 */
package io.quorumlock.redis.node;
