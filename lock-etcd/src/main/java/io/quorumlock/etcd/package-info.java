/**
 * The quorumlock API on etcd: {@link io.quorumlock.etcd.EtcdLockRegistry},
 * consensus-backed locks whose fencing token is an etcd revision. Reading order:
 * {@code EtcdLockRegistry} (entry point, re-entry), {@code EtcdRequest} (resolved
 * options, key layout), {@code Acquisition} (enqueue, wait on the predecessor's delete,
 * re-check after every wake-up), {@code EtcdLease} (validity, release, extension),
 * {@code KeepAlives} (one periodic pass over every lease), {@code Members} (each member's
 * status, for operators), {@code EtcdAdmin} (forced unlock, leak scan), {@code EtcdCalls}
 * (the only class that talks to jetcd), {@code Validity} (timing math).
 */
package io.quorumlock.etcd;
