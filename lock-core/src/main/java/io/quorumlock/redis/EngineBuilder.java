package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

import io.quorumlock.LockListener;
import io.quorumlock.LockOptions;

/**
 * The request settings {@link QuorumLockEngine.Builder} collects (key prefix and length,
 * defaults, instances), the listeners and the caller-facing policies, on top of the node
 * and timing settings of its bases: users see them all on
 * {@code QuorumLockEngine.Builder}, the only subclass. {@link #build()} checks them all
 * at once ({@link EngineSettings}).
 */
abstract sealed class EngineBuilder extends TimingSettingsBuilder permits QuorumLockEngine.Builder {

	String keyPrefix = QuorumLockEngine.Builder.DEFAULT_KEY_PREFIX;

	LockOptions defaults = LockOptions.none();

	final Map<String, LockOptions> instances = new LinkedHashMap<>();

	final List<LockListener> listeners = new ArrayList<>();

	OnLeaseLost onLeaseLost = OnLeaseLost.THROW;

	int maxKeyLength = QuorumLockEngine.Builder.DEFAULT_MAX_KEY_LENGTH;

	Executor asyncExecutor;

	EngineBuilder() {
	}

	/**
	 * Longest lock key accepted, in characters: the key a request or an annotation gives,
	 * before the prefix and the name are added. A longer key is refused with a
	 * {@link io.quorumlock.LockKeyException} before anything is sent to Redis.
	 * @param maxKeyLength a positive number (default 512)
	 * @return this builder
	 */
	public QuorumLockEngine.Builder maxKeyLength(int maxKeyLength) {
		this.maxKeyLength = maxKeyLength;
		return self();
	}

	/**
	 * Where callers' continuations run when a future the engine hands out
	 * ({@code acquireAsync}, {@code releaseAsync}, {@code fencingTokenAsync}) would
	 * otherwise complete on a Redis I/O thread or an engine thread. Default:
	 * {@code CompletableFuture}'s default async executor (the common pool). Code never
	 * runs there when the future completes on a caller's thread.
	 * @param asyncExecutor the executor
	 * @return this builder
	 */
	public QuorumLockEngine.Builder asyncExecutor(Executor asyncExecutor) {
		this.asyncExecutor = requireNonNull(asyncExecutor, "asyncExecutor");
		return self();
	}

	/**
	 * What a release reports when the lease was lost before it (default: throw).
	 * @param onLeaseLost the policy
	 * @return this builder
	 */
	public QuorumLockEngine.Builder onLeaseLost(OnLeaseLost onLeaseLost) {
		this.onLeaseLost = requireNonNull(onLeaseLost, "onLeaseLost");
		return self();
	}

	/**
	 * Prefix of every Redis key.
	 * @param keyPrefix the prefix, for example {@code lock:}
	 * @return this builder
	 */
	public QuorumLockEngine.Builder keyPrefix(String keyPrefix) {
		this.keyPrefix = requireNonNull(keyPrefix, "keyPrefix");
		return self();
	}

	/**
	 * Defaults for options a request does not set (built in: lease 30 s, no wait, renew,
	 * no bound on renewal).
	 * @param defaults the defaults
	 * @return this builder
	 */
	public QuorumLockEngine.Builder defaults(LockOptions defaults) {
		this.defaults = requireNonNull(defaults, "defaults");
		return self();
	}

	/**
	 * Options for requests with the given name, between the request's and the defaults.
	 * @param name the lock name
	 * @param options the options
	 * @return this builder
	 */
	public QuorumLockEngine.Builder instance(String name, LockOptions options) {
		this.instances.put(requireNonNull(name, "name"), requireNonNull(options, "options"));
		return self();
	}

	/**
	 * Add a listener.
	 * @param listener the listener
	 * @return this builder
	 */
	public QuorumLockEngine.Builder listener(LockListener listener) {
		this.listeners.add(requireNonNull(listener, "listener"));
		return self();
	}

	/**
	 * Check the settings and start connecting to the nodes in the background; a node that
	 * is unreachable now is not an error.
	 * @return the engine
	 * @throws IllegalArgumentException for a bad setting, naming it and its value
	 */
	public QuorumLockEngine build() {
		return new QuorumLockEngine(EngineSettings.of(this), null);
	}

	/** An engine on what a test supplies: timers, randomness, transports. */
	QuorumLockEngine build(EngineRuntime runtime) {
		return new QuorumLockEngine(EngineSettings.of(this), runtime);
	}

}
