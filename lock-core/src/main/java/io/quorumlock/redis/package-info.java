/**
 * The lock engine, usable without Spring through
 * {@link io.quorumlock.redis.QuorumLockEngine}. A reading map, the Redlock steps in
 * order, each with the type that does it:
 * <ol>
 * <li>Settings: {@code QuorumLockEngine.Builder} collects them (its setters in
 * {@code EngineBuilder}), {@code EngineSettings} checks them
 * ({@link io.quorumlock.redis.NodeUri}, {@link io.quorumlock.LockRules}) and fixes the
 * {@code RestartGuard}; {@code QuorumLockEngine} wires the parts below, on its own
 * threads ({@code EngineTimers}) or on what a test supplies ({@code EngineRuntime}).</li>
 * <li>Request: {@code Requests} takes it in; {@code RequestResolver} resolves the options
 * (request, instance, defaults) and the Redis keys ({@code LockKeys}); {@code Reentry}
 * finds a lease already in scope on this thread.</li>
 * <li>Acquire: {@code Acquirer} starts an {@code Acquisition} (its request, deadline,
 * per-key tokens and failure wording in {@code AcquisitionState}), tracked until it ends
 * so that closing the engine ends it ({@code Pending}): per key in sorted order, the
 * local queue ({@code LocalGates}), then rounds of {@code SET NX PX}
 * ({@code Voters#acquire}), each with a fresh token ({@code Tokens}), until a quorum
 * grants the key within its validity ({@code Validity}); contention subscribes to the
 * key's release channel ({@code ReleaseSignals}) and waits for it or a jittered back-off
 * ({@code Timers}); a multi-key grant proves its earlier keys ({@code MultiKeyProof});
 * the caller holds an {@code AcquisitionResult}, and a failure says why
 * ({@code NotAcquired}).</li>
 * <li>Rounds: {@code Voters} is the one interface in front of Redis; {@code RedisVoters}
 * runs each as a {@code Round} (one deadline, epochs, votes counted; failure lines
 * written when read, {@code RoundFailures}) over the {@code RedisNode}s, holding back the
 * nodes {@code HeldBack} names (restart guard, eviction, {@code SameServer}); a grant
 * that finds a master's dataset marker gone fails with
 * {@code NodeDataLostException}.</li>
 * <li>Nodes: a {@code RedisNode} (sharing {@code NodeContext}) reaches its server through
 * a {@code Transport}, its connections as {@code Link}s: {@code LettuceTransport} for one
 * server, {@code ClusterTransport} for a whole Redis Cluster in single mode (their
 * Lettuce settings in {@code LettuceContext}), or a test's. Each node connects in the
 * background ({@code Reconnector}), starts a connection epoch on every drop, reconnect
 * and NOSCRIPT, loads every {@code Script} on every connection per epoch, probes its ACL
 * ({@code ScriptProbe}), reads its server's state ({@code ServerState}: run_id, eviction
 * policy, the restart guard's dataset marker), sends {@code WAIT} on a connection of its
 * own ({@code ReplicatedWrites}), sends lost releases and undos again while their lease
 * could live ({@code Redos}), subscribes through {@code PubSub} (lost UNSUBSCRIBEs in
 * {@code LostUnsubscribes}) and scans for keys without a TTL ({@code LeakScan}).</li>
 * <li>Hand-off: {@code Handoff} and {@code CallerThreads} give the lease to the caller
 * off the I/O threads, {@code Listeners} on their own thread first; {@code Futures} holds
 * the await-and-rethrow rules.</li>
 * <li>Hold: {@code LeaseWatchdog} renews or watches the expiry; {@code Extender} extends
 * a lease without renewal on request; both run an {@code ExtensionRound}
 * ({@code Voters#extend}; renewals go by {@code Voters#renew}, which sends the renewals
 * due on a node together, {@code RenewalBatch}); {@code Losses} declares a lease lost;
 * {@code Fencing} computes fencing tokens.</li>
 * <li>Release: {@code Releaser} deletes the keys ({@code Voters#release}, redone when a
 * node comes back) or keeps them for {@code MinimumHold}, then frees the local
 * gates.</li>
 * <li>Query: {@code LockQuery} answers who holds a key: anyone, by one voting round
 * ({@code Voters#held}) that only answers decide, or this thread or engine, from its own
 * leases.</li>
 * <li>Status: {@code EngineStatus} (nodes, leases, force-unlock, leak scan);
 * {@code Connections} creates, connects, maintains and closes the nodes.</li>
 * </ol>
 */
package io.quorumlock.redis;
