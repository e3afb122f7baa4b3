package io.quorumlock.integration;

import java.util.concurrent.locks.Lock;

import org.springframework.integration.support.locks.LockRegistry;

import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.LockRequest;

/**
 * A Spring Integration {@link LockRegistry} backed by a {@link DistributedLockRegistry}:
 * {@code obtain(key)} is {@link DistributedLockRegistry#asLock(LockRequest)} of
 * {@code <registryKey>:<key>}, so the Redis key is {@code lock:{<registryKey>:<key>}},
 * labelled with the registry key ({@value #DEFAULT_REGISTRY_KEY} unless given), which is
 * the {@code lock} in messages, metrics and {@code /actuator/locks}; give each registry
 * its own registry key to tell their locks apart there. The locks are re-entrant per
 * thread and renewed by the engine's watchdog while held (with the configured
 * {@code quorumlock.lease} and {@code quorumlock.renew}), so
 * {@code LockRegistryLeaderInitiator} keeps leadership while its lease is renewed; once
 * the lease is lost its next heartbeat's {@code tryLock} fails with
 * {@link io.quorumlock.LeaseLostException} and leadership is revoked. Without a quorum
 * {@code tryLock} throws {@link io.quorumlock.QuorumUnavailableException}, so nobody
 * leads. Implemented raw, so that the same class serves Spring Integration 6.5 and 7.x
 * (where the interface is generic).
 */
@SuppressWarnings("rawtypes")
public class QuorumLockRegistry implements LockRegistry {

	/** The default registry key, the first part of every lock key. */
	public static final String DEFAULT_REGISTRY_KEY = "integration";

	private final DistributedLockRegistry registry;

	private final String registryKey;

	/**
	 * Create a registry whose keys start with {@value #DEFAULT_REGISTRY_KEY}.
	 * @param registry the registry to lock on
	 */
	public QuorumLockRegistry(DistributedLockRegistry registry) {
		this(registry, DEFAULT_REGISTRY_KEY);
	}

	/**
	 * Create a registry whose keys start with the given registry key.
	 * @param registry the registry to lock on
	 * @param registryKey the first part of every lock key, not empty
	 */
	public QuorumLockRegistry(DistributedLockRegistry registry, String registryKey) {
		if (registry == null) {
			throw new IllegalArgumentException("'registry' must not be null");
		}
		if (registryKey == null || registryKey.isEmpty()) {
			throw new IllegalArgumentException("'registryKey' must not be empty");
		}
		this.registry = registry;
		this.registryKey = registryKey;
	}

	/**
	 * The lock for a key.
	 * @param lockKey a {@code String}
	 * @return a re-entrant {@link Lock} over the key
	 * @throws IllegalArgumentException if the key is not a non-empty string
	 */
	@Override
	public Lock obtain(Object lockKey) {
		if (!(lockKey instanceof String key) || key.isEmpty()) {
			throw new IllegalArgumentException("lock key must be a non-empty String, was " + lockKey);
		}
		LockRequest request = LockRequest.of(this.registryKey + ":" + key).label(this.registryKey);
		try {
			return this.registry.asLock(request);
		}
		catch (UnsupportedOperationException ex) {
			// a registry without labelled views: the same key, unlabelled
			return this.registry.asLock(request.keys().get(0));
		}
	}

}
