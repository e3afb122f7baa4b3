package io.quorumlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * The lock commands on a node's command connection: {@code SET NX PX} with its arguments
 * kept, the scripts by {@code EVALSHA} ({@link Evalsha}). Each fails at once while the
 * node is not connected, quoting the last connection attempt, and a grant fails while the
 * script probe ({@link ScriptProbe}) says this user may not run the lock scripts.
 */
final class NodeCommands {

	private final ScriptProbe probe;

	private final Reconnector reconnector;

	/**
	 * The commands both Lettuce connections offer: {@code RedisAsyncCommands} of one
	 * node, {@code RedisAdvancedClusterAsyncCommands} (routing by key, cluster-wide SCAN)
	 * of a cluster; null until connected.
	 */
	private volatile RedisClusterAsyncCommands<String, String> commands;

	/**
	 * The arguments of the last {@code SET NX PX}, reused while the lease is the same.
	 */
	private volatile LeaseArgs lastSetArgs;

	NodeCommands(ScriptProbe probe, Reconnector reconnector) {
		this.probe = probe;
		this.reconnector = reconnector;
	}

	/** The commands of a new connection. */
	void use(RedisClusterAsyncCommands<String, String> commands) {
		this.commands = commands;
	}

	/** The commands, null until connected. */
	RedisClusterAsyncCommands<String, String> get() {
		return this.commands;
	}

	/**
	 * {@code SET key token NX PX lease}: completes with the reply, which
	 * {@link RedisNode#isSet(String)} reads as set, or not set because the key exists.
	 * Lettuce's own future, with no stage added, since every acquisition round waits on
	 * one.
	 */
	CompletionStage<String> setIfAbsent(String key, String token, long leaseMillis) {
		RedisClusterAsyncCommands<String, String> c = this.commands;
		if (c == null) {
			return this.reconnector.notConnected();
		}
		CompletableFuture<String> refused = refused();
		if (refused != null) {
			return refused;
		}
		return c.set(key, token, setArgs(leaseMillis));
	}

	/** Run the script permission probe, if connected. */
	CompletableFuture<Void> probe() {
		if (this.commands == null) {
			return CompletableFuture.completedFuture(null);
		}
		return this.probe.probe((script, key, args) -> eval(script, new String[] { key }, args));
	}

	/** The failure of a grant while this user may not run the lock scripts, else null. */
	<T> CompletableFuture<T> refused() {
		return this.probe.refused();
	}

	/** {@code NX PX lease}, the last arguments kept ({@link LeaseArgs}). */
	SetArgs setArgs(long leaseMillis) {
		LeaseArgs last = this.lastSetArgs;
		LeaseArgs args = LeaseArgs.of(last, leaseMillis);
		if (args != last) {
			this.lastSetArgs = args;
		}
		return args.args();
	}

	/** Run a script with EVALSHA, falling back to EVAL on NOSCRIPT (a restarted node). */
	CompletableFuture<Long> eval(Script script, String[] keys, String... args) {
		RedisClusterAsyncCommands<String, String> c = this.commands;
		if (c == null) {
			return this.reconnector.notConnected();
		}
		return Evalsha.eval(c, script, keys, args);
	}

}
