package io.quorumlock.redis.node;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisCommandExecutionException;

/**
 * Whether the user may run the lock scripts on a node. The release script is run once per
 * (re)connect on a key no lock uses (it only reads it): a user whose ACL forbids the
 * scripts or the commands inside them ({@code NOPERM}) could take a lock with {@code SET}
 * but never renew nor release it, so such a node refuses grants until a later probe
 * succeeds. Any other failure (a timeout, a dropped connection) leaves the last verdict.
 */
public final class ScriptProbe {

	/** Runs a script on the node, as {@code (script, key, args)}. */
	interface Eval {

		CompletionStage<Long> eval(Script script, String key, String... args);

	}

	/** Key the probe reads; inside the key prefix. */
	private final String probeKey;

	/** The release channel of the probe key, which the release script names. */
	private final String probeChannel;

	/** Why the node refuses grants, else null. */
	private volatile String refusal;

	ScriptProbe(String probeKey, String probeChannel) {
		this.probeKey = probeKey;
		this.probeChannel = probeChannel;
	}

	/** Run the probe; completes normally whatever it finds. */
	CompletableFuture<Void> probe(Eval eval) {
		return eval.eval(Script.RELEASE, this.probeKey, "-", this.probeChannel)
			.toCompletableFuture()
			.handle((result, error) -> {
				String text = (error != null) ? Replies.reason(error) : null;
				if (text == null || text.contains("NOPERM")) {
					this.refusal = text;
				}
				return null;
			});
	}

	/** The failure of a grant on this node, or null if it may grant. */
	<T> CompletableFuture<T> refused() {
		String refused = this.refusal;
		if (refused == null) {
			return null;
		}
		return CompletableFuture.failedFuture(new RedisCommandExecutionException(
				"refuses grants, this user may not run the lock scripts: " + refused));
	}

}
